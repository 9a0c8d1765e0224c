package dev.logpipe.query.internal.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The alerts of one rule, as Prometheus keeps them: a series of the expression's result becomes an alert that is
 * pending until it has held for the rule's {@code for}, then firing; one missing from a later evaluation is dropped
 * (pending) or resolved (firing). Used by one evaluator's thread at a time: handed to the next evaluator only once
 * the previous one's thread has ended ({@link RuleEvaluator#stop()}).
 */
final class AlertState {
    enum Phase {
        PENDING,
        FIRING
    }

    /** One alert: its full labels, when it became active, its phase, its last value. */
    static final class Alert {
        final SortedMap<String, String> labels;
        final Instant activeAt;
        Phase phase = Phase.PENDING;
        double value;
        Instant resolvedAt;
        Instant lastSent;
        /** The newest lines behind it, read when it first fires (for {@code {{ $sample_lines }}}). */
        String samples;

        Alert(SortedMap<String, String> labels, Instant activeAt) {
            this.labels = labels;
            this.activeAt = activeAt;
        }
    }

    private final Map<SortedMap<String, String>, Alert> active = new LinkedHashMap<>();

    /**
     * Applies one evaluation's result (alert labels to value) at {@code now}; returns the alerts resolved by it
     * (their {@code resolvedAt} set), which are no longer held.
     */
    List<Alert> update(Map<SortedMap<String, String>, Double> result, Instant now, Duration holdFor) {
        for (Map.Entry<SortedMap<String, String>, Double> e : result.entrySet()) {
            Alert a = active.computeIfAbsent(new TreeMap<>(e.getKey()), k -> new Alert(k, now));
            a.value = e.getValue();
            if (a.phase == Phase.PENDING && !now.isBefore(a.activeAt.plus(holdFor))) {
                a.phase = Phase.FIRING;
            }
        }
        List<Alert> resolved = new ArrayList<>();
        Iterator<Map.Entry<SortedMap<String, String>, Alert>> it =
                active.entrySet().iterator();
        while (it.hasNext()) {
            Alert a = it.next().getValue();
            if (!result.containsKey(a.labels)) {
                it.remove();
                if (a.phase == Phase.FIRING) {
                    a.resolvedAt = now;
                    resolved.add(a);
                }
            }
        }
        return resolved;
    }

    List<Alert> active() {
        return List.copyOf(active.values());
    }
}
