package io.tideline.replication.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ThrottledReplicasTest {

    @Test
    void starThrottlesEveryReplicaAndBlankNone() {
        assertTrue(ThrottledReplicas.parse("*").includes(7, 42));
        assertTrue(ThrottledReplicas.parse(" 0:1 , * ").includes(3, 3));
        assertFalse(ThrottledReplicas.parse("").includes(0, 1));
        assertFalse(ThrottledReplicas.parse((String) null).includes(0, 1));
    }

    @Test
    void entriesNameOnePartitionOnOneBroker() {
        ThrottledReplicas t = ThrottledReplicas.parse("0:101,1:102");
        assertTrue(t.includes(0, 101));
        assertTrue(t.includes(1, 102));
        assertFalse(t.includes(0, 102));
        assertFalse(t.includes(1, 101));
    }

    @Test
    void malformedEntriesAreRefusedNamingTheEntry() {
        for (String bad : new String[] {"0", "0:1:2", "a:1", "0:-1", "-1:0", "0:"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ThrottledReplicas.parse(bad));
            assertTrue(e.getMessage().contains("partition:broker"), e.getMessage());
        }
    }
}
