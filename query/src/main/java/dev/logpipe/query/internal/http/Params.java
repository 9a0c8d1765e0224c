package dev.logpipe.query.internal.http;

import java.util.List;
import java.util.Map;

/** The query parameters of a request (first value of each name), read with refusals as 400s naming the parameter. */
public record Params(Map<String, List<String>> all) {
    public Params {
        all = Map.copyOf(all);
    }

    public String get(String name) {
        List<String> v = all.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    public String get(String name, String fallback) {
        String v = get(name);
        return v == null ? fallback : v;
    }

    public int integer(String name, int fallback, int min, int max) {
        String v = get(name);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw bad(name + ": must be between " + min + " and " + max + ", was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw bad(name + ": must be a whole number, was \"" + abbreviate(v) + "\"");
        }
    }

    public static Refusal bad(String message) {
        return new Refusal(400, "bad_request", message);
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
