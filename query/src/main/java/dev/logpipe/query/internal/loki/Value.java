package dev.logpipe.query.internal.loki;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * What a metric expression evaluates to over the steps: a scalar (one value per step) or a vector of series (labels
 * to one value per step, {@link Double#NaN} where a series has no value).
 */
sealed interface Value {
    record Scalar(double[] values) implements Value {}

    record Vector(Map<SortedMap<String, String>, double[]> series) implements Value {
        Vector() {
            this(new LinkedHashMap<>());
        }
    }
}
