package io.tideline.node.group;

import io.tideline.common.time.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A classic consumer group in the coordinator's memory: state, generation, leader, members, which member id holds
 * each static member's group.instance.id, and the members given an id by MEMBER_ID_REQUIRED that have not
 * rejoined yet. Not thread-safe: the coordinator holds this
 * object's monitor for every read and change.
 */
final class ClassicGroup {
    final String groupId;
    GroupState state;
    int generation;
    String protocolType = "";
    String protocol = "";
    String leaderId = "";
    final LinkedHashMap<String, GroupMember> members = new LinkedHashMap<>();
    /** group.instance.id -> the member id that holds it now; one entry per static member of {@link #members}. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, with the timer that drops them if they never rejoin. */
    final Map<String, Scheduler.Cancellable> pendingMembers = new HashMap<>();
    /** The generation the image holds for this group (-1: not in the image); StoreGroup expects it. */
    int storedGeneration;
    /** StoreGroup commands of this group not answered yet. */
    int storesInFlight;
    /** Set when the leader's assignment is being stored: a second SyncGroup of the leader stores nothing. */
    boolean assigning;
    /** Changes with every rebalance; a timer of an earlier one finds it changed and does nothing. */
    int rebalanceId;
    Scheduler.Cancellable joinTimer;
    Scheduler.Cancellable syncTimer;
    /** The first rebalance of an Empty group: it waits group.initial.rebalance.delay.ms for more members. */
    boolean initialDelay;
    long initialDelayRemainingMs;
    boolean joinedDuringDelay;

    ClassicGroup(String groupId, GroupState state, int generation, int storedGeneration) {
        this.groupId = groupId;
        this.state = state;
        this.generation = generation;
        this.storedGeneration = storedGeneration;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    int size() {
        return members.size() + pendingMembers.size();
    }

    boolean allRejoined() {
        return pendingMembers.isEmpty() && members.values().stream().allMatch(m -> m.awaitingJoin != null);
    }

    int rebalanceTimeoutMs() {
        return members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
    }

    /**
     * The protocol every member supports that is the most preferred over all members (each member votes for
     * the first of its protocols that all support), as Kafka picks it; empty when none is common.
     */
    Optional<String> selectProtocol() {
        List<String> common = null;
        for (GroupMember m : members.values()) {
            if (common == null) {
                common = new ArrayList<>(m.protocols.keySet());
            } else {
                common.retainAll(m.protocols.keySet());
            }
        }
        if (common == null || common.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> votes = new LinkedHashMap<>();
        common.forEach(p -> votes.put(p, 0));
        for (GroupMember m : members.values()) {
            for (String p : m.protocols.keySet()) {
                if (votes.containsKey(p)) {
                    votes.merge(p, 1, Integer::sum);
                    break;
                }
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    /** Whether a joining member's protocols fit the group (type and at least one protocol in common). */
    boolean supports(String type, Map<String, byte[]> protocols) {
        if (members.isEmpty()) {
            return !type.isEmpty() && !protocols.isEmpty();
        }
        if (!protocolType.equals(type)) {
            return false;
        }
        for (String p : protocols.keySet()) {
            if (members.values().stream().allMatch(m -> m.protocols.containsKey(p))) {
                return true;
            }
        }
        return false;
    }
}
