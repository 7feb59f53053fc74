package io.tideline.node.controller;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import java.util.List;
import java.util.Set;

/** Who may lead, and who is picked: the same rules for fencing, shutdown, reassignment and elections. */
final class LeaderElection {
    static final int NO_LEADER = -1;

    private LeaderElection() {
    }

    /** Registered, unfenced, not shutting down and not excluded. */
    static boolean eligible(MetadataImage image, int brokerId, Set<Integer> excluded) {
        if (excluded.contains(brokerId)) {
            return false;
        }
        BrokerRegistrationRecord b = image.brokers().get(brokerId);
        return b != null && !b.getFenced() && !b.getInControlledShutdown();
    }

    /**
     * The first replica, in assignment order (so the preferred leader wins when it can), that is in
     * the ISR and eligible; NO_LEADER if none. Replica order rather than ISR order keeps leadership
     * where the assignment put it.
     */
    static int cleanLeader(MetadataImage image, List<Integer> replicas, List<Integer> isr, Set<Integer> excluded) {
        for (int r : replicas) {
            if (isr.contains(r) && eligible(image, r, excluded)) {
                return r;
            }
        }
        return NO_LEADER;
    }

    /** With unclean election: any eligible replica, even one outside the ISR (data may be lost). */
    static int uncleanLeader(MetadataImage image, List<Integer> replicas, Set<Integer> excluded) {
        for (int r : replicas) {
            if (eligible(image, r, excluded)) {
                return r;
            }
        }
        return NO_LEADER;
    }
}
