package dev.logpipe.query.internal.loki;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.re2j.Pattern;
import dev.logpipe.query.internal.loki.LogQl.Compare;
import dev.logpipe.query.internal.loki.LogQl.Extraction;
import dev.logpipe.query.internal.loki.LogQl.LineFilter;
import dev.logpipe.query.internal.loki.LogQl.Matcher;
import dev.logpipe.query.internal.loki.LogQl.Predicate;
import dev.logpipe.query.internal.loki.LogQl.Stage;
import dev.logpipe.query.internal.loki.LogQl.ValueKind;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A log query's selector and stages, compiled once per request and run on each record the engine found: the
 * selector's matchers again (the engine is handed only the parts it can match exactly), line filters, parsers, label
 * filters and formatting, in order. Not thread-safe (one per request).
 */
final class Pipeline {
    static final String ERROR = "__error__";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<Function<Line, Boolean>> steps = new ArrayList<>();

    /** A record as a log pipeline sees it: labels (mutable) and the line. */
    static final class Line {
        final Map<String, String> labels;
        String text;

        Line(Map<String, String> labels, String text) {
            this.labels = labels;
            this.text = text;
        }
    }

    Pipeline(LogQl.LogQuery query) {
        for (Matcher m : query.selector()) {
            LabelMatch match = new LabelMatch(m);
            steps.add(l -> match.test(l.labels.getOrDefault(m.name(), "")));
        }
        for (Stage s : query.pipeline()) {
            steps.add(compile(s));
        }
    }

    /** True when the line passes every stage (its labels and text are changed on the way). */
    boolean run(Line line) {
        for (Function<Line, Boolean> step : steps) {
            if (!step.apply(line)) {
                return false;
            }
        }
        return true;
    }

    /** A label matcher, its regular expression (anchored) compiled once. */
    static final class LabelMatch {
        private final Matcher m;
        private final Pattern regex;

        LabelMatch(Matcher m) {
            this.m = m;
            this.regex = m.op() == LogQl.MatchOp.RE || m.op() == LogQl.MatchOp.NRE ? Regexes.anchored(m.value()) : null;
        }

        boolean test(String value) {
            return switch (m.op()) {
                case EQ -> value.equals(m.value());
                case NE -> !value.equals(m.value());
                case RE -> regex.matches(value);
                case NRE -> !regex.matches(value);
            };
        }
    }

    private static Function<Line, Boolean> compile(Stage s) {
        if (s instanceof LineFilter f) {
            return lineFilter(f);
        }
        if (s instanceof LogQl.JsonParser j) {
            return l -> {
                json(l, j.extractions());
                return true;
            };
        }
        if (s instanceof LogQl.LogfmtParser p) {
            return l -> {
                logfmt(l, p.extractions());
                return true;
            };
        }
        if (s instanceof LogQl.PatternParser p) {
            List<Patterns.Part> parts = Patterns.parts(p.pattern(), 0);
            return l -> {
                List<String[]> found = Patterns.match(parts, l.text);
                if (found != null) {
                    found.forEach(kv -> put(l.labels, kv[0], kv[1]));
                }
                return true;
            };
        }
        if (s instanceof LogQl.RegexpParser r) {
            Pattern p = Regexes.compile(r.pattern(), 0);
            Map<String, Integer> groups = p.namedGroups();
            return l -> {
                com.google.re2j.Matcher m = p.matcher(l.text);
                if (m.find()) {
                    groups.forEach((name, i) -> {
                        String v = m.group(i);
                        put(l.labels, name, v == null ? "" : v);
                    });
                }
                return true;
            };
        }
        if (s instanceof LogQl.LabelFilter f) {
            Function<Line, Boolean> p = predicate(f.predicate());
            return p;
        }
        if (s instanceof LogQl.LineFormat f) {
            return l -> {
                l.text = Templates.render(f.template(), l.labels, l.text);
                return true;
            };
        }
        if (s instanceof LogQl.LabelFormat f) {
            return l -> {
                Map<String, String> before = Map.copyOf(l.labels);
                for (LogQl.LabelAssignment a : f.assignments()) {
                    if (a.template()) {
                        l.labels.put(a.label(), Templates.render(a.source(), before, l.text));
                    } else {
                        String v = l.labels.remove(a.source());
                        l.labels.put(a.label(), v == null ? "" : v);
                    }
                }
                return true;
            };
        }
        if (s instanceof LogQl.Drop d) {
            List<LabelMatch> ms = d.labels().stream().map(LabelMatch::new).toList();
            return l -> {
                for (int i = 0; i < ms.size(); i++) {
                    String name = d.labels().get(i).name();
                    String v = l.labels.get(name);
                    if (v != null && ms.get(i).test(v)) {
                        l.labels.remove(name);
                    }
                }
                return true;
            };
        }
        LogQl.Keep k = (LogQl.Keep) s;
        List<LabelMatch> ms = k.labels().stream().map(LabelMatch::new).toList();
        return l -> {
            Iterator<Map.Entry<String, String>> it = l.labels.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<String, String> e = it.next();
                boolean kept = false;
                for (int i = 0; i < ms.size() && !kept; i++) {
                    kept = k.labels().get(i).name().equals(e.getKey())
                            && ms.get(i).test(e.getValue());
                }
                if (!kept) {
                    it.remove();
                }
            }
            return true;
        };
    }

    private static Function<Line, Boolean> lineFilter(LineFilter f) {
        return switch (f.op()) {
            case CONTAINS -> l -> f.values().stream().anyMatch(l.text::contains);
            case NOT_CONTAINS -> l -> f.values().stream().noneMatch(l.text::contains);
            case MATCHES, NOT_MATCHES -> {
                List<Pattern> ps =
                        f.values().stream().map(v -> Regexes.compile(v, 0)).toList();
                boolean want = f.op() == LogQl.LineOp.MATCHES;
                yield l -> ps.stream().anyMatch(p -> p.matcher(l.text).find()) == want;
            }
        };
    }

    private static Function<Line, Boolean> predicate(Predicate p) {
        if (p instanceof LogQl.And a) {
            Function<Line, Boolean> x = predicate(a.left());
            Function<Line, Boolean> y = predicate(a.right());
            return l -> x.apply(l) && y.apply(l);
        }
        if (p instanceof LogQl.Or o) {
            Function<Line, Boolean> x = predicate(o.left());
            Function<Line, Boolean> y = predicate(o.right());
            return l -> x.apply(l) || y.apply(l);
        }
        if (p instanceof LogQl.StringMatch s) {
            LabelMatch m = new LabelMatch(s.matcher());
            return l -> m.test(l.labels.getOrDefault(s.matcher().name(), ""));
        }
        Compare c = (Compare) p;
        return l -> {
            String v = l.labels.get(c.label());
            Double d = v == null ? null : number(v, c.kind());
            if (d == null) { // as Loki: the line stays, marked, so a metric query can refuse it
                l.labels.putIfAbsent(ERROR, "LabelFilterErr");
                return true;
            }
            return switch (c.op()) {
                case EQ -> d.doubleValue() == c.value();
                case NE -> d.doubleValue() != c.value();
                case GT -> d > c.value();
                case GE -> d >= c.value();
                case LT -> d < c.value();
                case LE -> d <= c.value();
            };
        };
    }

    /** A label's value read as a number, a duration (in seconds) or a size (in bytes); null when it is not one. */
    static Double number(String v, ValueKind kind) {
        String t = v.strip();
        switch (kind) {
            case DURATION -> {
                Double ns = Durations.nanos(t);
                if (ns != null) {
                    return ns / 1e9;
                }
                return parse(t);
            }
            case BYTES -> {
                Double b = Durations.bytes(t);
                return b != null ? b : parse(t);
            }
            default -> {
                return parse(t);
            }
        }
    }

    private static Double parse(String t) {
        if (t.isEmpty() || t.length() > 64) {
            return null;
        }
        try {
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A label name as Loki allows it: letters, digits and _, not starting with a digit. */
    static String sanitize(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            b.append((c < 128 && Character.isLetterOrDigit(c)) || c == '_' ? c : '_');
        }
        if (b.length() == 0 || Character.isDigit(b.charAt(0))) {
            b.insert(0, '_');
        }
        return b.toString();
    }

    /** Adds a parsed label; a name the line already has gets {@code _extracted}, as Loki does. */
    private static void put(Map<String, String> labels, String name, String value) {
        String n = sanitize(name);
        labels.put(labels.containsKey(n) ? n + "_extracted" : n, value);
    }

    private static void json(Line l, List<Extraction> extractions) {
        JsonNode root;
        try {
            root = JSON.readTree(l.text);
        } catch (JsonProcessingException e) {
            root = null;
        }
        if (root == null || !root.isObject()) {
            l.labels.putIfAbsent(ERROR, "JSONParserErr");
            return;
        }
        if (extractions.isEmpty()) {
            flatten(l.labels, "", root, 0);
            return;
        }
        for (Extraction e : extractions) {
            JsonNode v = path(root, e.expression());
            if (v != null && !v.isContainerNode()) {
                l.labels.put(sanitize(e.label()), v.isNull() ? "" : v.asText());
            } else if (v != null) {
                l.labels.put(sanitize(e.label()), v.toString());
            }
        }
    }

    private static void flatten(Map<String, String> labels, String prefix, JsonNode node, int depth) {
        if (depth > 32) {
            return;
        }
        node.fields().forEachRemaining(e -> {
            String name = prefix.isEmpty() ? e.getKey() : prefix + "_" + e.getKey();
            JsonNode v = e.getValue();
            if (v.isObject()) {
                flatten(labels, name, v, depth + 1);
            } else if (!v.isArray()) {
                put(labels, name, v.isNull() ? "" : v.asText());
            }
        });
    }

    /** {@code a.b[0].c} or {@code ["a b"]} in a JSON tree; null when the path leads nowhere. */
    static JsonNode path(JsonNode root, String expression) {
        JsonNode n = root;
        int i = 0;
        String e = expression;
        while (i < e.length() && n != null) {
            char c = e.charAt(i);
            if (c == '.') {
                i++;
            } else if (c == '[') {
                int close = e.indexOf(']', i);
                if (close < 0) {
                    return null;
                }
                String inner = e.substring(i + 1, close).strip();
                if (inner.length() >= 2 && inner.startsWith("\"") && inner.endsWith("\"")) {
                    n = n.get(inner.substring(1, inner.length() - 1));
                } else {
                    try {
                        n = n.get(Integer.parseInt(inner));
                    } catch (NumberFormatException x) {
                        return null;
                    }
                }
                i = close + 1;
            } else {
                int end = i;
                while (end < e.length() && e.charAt(end) != '.' && e.charAt(end) != '[') {
                    end++;
                }
                n = n.get(e.substring(i, end));
                i = end;
            }
        }
        return n;
    }

    private static void logfmt(Line l, List<Extraction> extractions) {
        Map<String, String> found = new java.util.LinkedHashMap<>();
        String s = l.text;
        int i = 0;
        int n = s.length();
        while (i < n) {
            while (i < n && s.charAt(i) <= ' ') {
                i++;
            }
            int k = i;
            while (i < n && s.charAt(i) > ' ' && s.charAt(i) != '=' && s.charAt(i) != '"') {
                i++;
            }
            String key = s.substring(k, i);
            String value = "";
            if (i < n && s.charAt(i) == '=') {
                i++;
                if (i < n && s.charAt(i) == '"') {
                    StringBuilder b = new StringBuilder();
                    i++;
                    while (i < n && s.charAt(i) != '"') {
                        if (s.charAt(i) == '\\' && i + 1 < n) {
                            i++;
                            char c = s.charAt(i);
                            b.append(c == 'n' ? '\n' : c == 't' ? '\t' : c);
                        } else {
                            b.append(s.charAt(i));
                        }
                        i++;
                    }
                    i++;
                    value = b.toString();
                } else {
                    int v = i;
                    while (i < n && s.charAt(i) > ' ') {
                        i++;
                    }
                    value = s.substring(v, i);
                }
            } else if (i < n && s.charAt(i) == '"') {
                i++; // a stray quote: skip it
            }
            if (!key.isEmpty()) {
                found.put(key, value);
            }
        }
        if (extractions.isEmpty()) {
            found.forEach((k, v) -> put(l.labels, k, v));
            return;
        }
        for (Extraction e : extractions) {
            String v = found.get(e.expression());
            if (v != null) {
                l.labels.put(sanitize(e.label()), v);
            }
        }
    }
}
