package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQl.Grouping;
import dev.logpipe.query.internal.loki.LogQl.VectorAgg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** sum, count, avg, min, max, topk and bottomk, by or without labels, step by step (Prometheus' semantics). */
final class Aggregations {
    private Aggregations() {}

    /** The labels a series keeps under a grouping: those named by {@code by}, or all but those named by {@code without}. */
    static SortedMap<String, String> group(SortedMap<String, String> labels, Grouping g) {
        if (g == null) {
            return labels;
        }
        SortedMap<String, String> out = new TreeMap<>();
        labels.forEach((k, v) -> {
            if (g.labels().contains(k) != g.without()) {
                out.put(k, v);
            }
        });
        return out;
    }

    static Value.Vector apply(VectorAgg a, Value.Vector in, int steps) {
        Grouping g = a.grouping() == null ? new Grouping(false, List.of()) : a.grouping();
        Map<SortedMap<String, String>, List<Map.Entry<SortedMap<String, String>, double[]>>> groups =
                new LinkedHashMap<>();
        for (Map.Entry<SortedMap<String, String>, double[]> e : MetricEval.sorted(in)) {
            groups.computeIfAbsent(group(e.getKey(), g), k -> new ArrayList<>()).add(e);
        }
        Value.Vector out = new Value.Vector();
        for (Map.Entry<SortedMap<String, String>, List<Map.Entry<SortedMap<String, String>, double[]>>> group :
                groups.entrySet()) {
            List<Map.Entry<SortedMap<String, String>, double[]>> members = group.getValue();
            if (a.op() == LogQl.VectorOp.TOPK || a.op() == LogQl.VectorOp.BOTTOMK) {
                selectK(a, members, steps, out);
                continue;
            }
            double[] v = new double[steps];
            for (int k = 0; k < steps; k++) {
                double acc = Double.NaN;
                int n = 0;
                for (Map.Entry<SortedMap<String, String>, double[]> m : members) {
                    double x = m.getValue()[k];
                    if (Double.isNaN(x)) {
                        continue;
                    }
                    n++;
                    acc = switch (a.op()) {
                        case SUM, AVG -> (n == 1 ? 0 : acc) + x;
                        case COUNT -> n;
                        case MIN -> n == 1 ? x : Math.min(acc, x);
                        case MAX -> n == 1 ? x : Math.max(acc, x);
                        default -> throw new AssertionError(a.op());
                    };
                }
                v[k] = a.op() == LogQl.VectorOp.AVG && n > 0 ? acc / n : acc;
            }
            out.series().put(group.getKey(), v);
        }
        return out;
    }

    private static void selectK(
            VectorAgg a, List<Map.Entry<SortedMap<String, String>, double[]>> members, int steps, Value.Vector out) {
        boolean top = a.op() == LogQl.VectorOp.TOPK;
        Map<SortedMap<String, String>, double[]> picked = new LinkedHashMap<>();
        for (int k = 0; k < steps; k++) {
            final int step = k;
            List<Map.Entry<SortedMap<String, String>, double[]>> present = new ArrayList<>();
            for (Map.Entry<SortedMap<String, String>, double[]> m : members) {
                if (!Double.isNaN(m.getValue()[k])) {
                    present.add(m);
                }
            }
            present.sort((x, y) -> top
                    ? Double.compare(y.getValue()[step], x.getValue()[step])
                    : Double.compare(x.getValue()[step], y.getValue()[step]));
            for (int i = 0; i < Math.min(a.param(), present.size()); i++) {
                Map.Entry<SortedMap<String, String>, double[]> m = present.get(i);
                double[] v = picked.computeIfAbsent(m.getKey(), x -> {
                    double[] nan = new double[steps];
                    Arrays.fill(nan, Double.NaN);
                    return nan;
                });
                v[k] = m.getValue()[k];
            }
        }
        out.series().putAll(picked);
    }
}
