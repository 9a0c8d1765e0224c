package dev.logpipe.collector.redact;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.record.LogRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replaces secret-shaped text in a record's message and string fields before the record is durable anywhere
 * (invariant I5). Built-in rules (bearer tokens, AWS access key ids, private key blocks, password/secret/token
 * key=value pairs, card numbers that pass the Luhn check) come first, then the configured ones. All patterns are
 * RE2 (linear time). A value that cannot be checked fails closed: a field longer than {@code max_scan_bytes} is
 * withheld (removed, and named in {@code fields."logpipe.redaction.withheld"}); a message that long holds the
 * whole record back ({@link Result#heldBack}).
 */
public final class Redactor {
    public static final String WITHHELD_FIELD = "logpipe.redaction.withheld";

    /**
     * One rule: a name for metrics and markers, a pattern, what replaces a match, and a cheap test that is false
     * only when the pattern cannot match (RE2/J's matcher costs microseconds per value; most values skip it).
     */
    record Rule(String name, Pattern pattern, String replacement, boolean luhn,
                java.util.function.Predicate<String> mayMatch) {
    }

    /** The redacted record, or null when it is held back; which rules fired, how often. */
    public record Result(LogRecord record, Map<String, Integer> hits, String heldBackReason) {
        public boolean heldBack() {
            return record == null;
        }
    }

    private final List<Rule> rules;
    private final int maxScanChars;

    public Redactor(CollectorConfig.Redaction config) {
        List<Rule> all = new ArrayList<>(BuiltInRules.all());
        for (CollectorConfig.Rule r : config.rules()) {
            all.add(new Rule(r.name(), Pattern.compile(r.pattern()), r.replacement(), false, text -> true));
        }
        this.rules = List.copyOf(all);
        this.maxScanChars = config.maxScanBytes();
    }

    public List<String> ruleNames() {
        return rules.stream().map(Rule::name).toList();
    }

    public Result redact(LogRecord r) {
        Map<String, Integer> hits = new LinkedHashMap<>();
        if (r.message().length() > maxScanChars) {
            return new Result(null, hits, "message of " + r.message().length() + " characters is longer than "
                    + "redaction.max_scan_bytes (" + maxScanChars + "); it cannot be checked for secrets");
        }
        String message = apply(r.message(), hits);
        // The short top-level strings too: a client can put anything anywhere.
        String service = applyNullable(r.service(), hits);
        String instance = applyNullable(r.instanceId(), hits);
        String region = applyNullable(r.region(), hits);
        String trace = applyNullable(r.traceId(), hits);
        String span = applyNullable(r.spanId(), hits);
        Map<String, Object> fields = new LinkedHashMap<>();
        List<String> withheld = new ArrayList<>();
        boolean changed = !message.equals(r.message()) || !java.util.Objects.equals(service, r.service())
                || !java.util.Objects.equals(instance, r.instanceId()) || !java.util.Objects.equals(region, r.region())
                || !java.util.Objects.equals(trace, r.traceId()) || !java.util.Objects.equals(span, r.spanId());
        for (Map.Entry<String, Object> e : r.fields().entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                if (BuiltInRules.isSecretName(e.getKey())) {
                    // "password": 12345678 is as secret as a string.
                    hits.merge(BuiltInRules.SECRET_FIELD_RULE, 1, Integer::sum);
                    fields.put(e.getKey(), "[REDACTED:" + BuiltInRules.SECRET_FIELD_RULE + "]");
                    changed = true;
                } else {
                    fields.put(e.getKey(), e.getValue());
                }
                continue;
            }
            if (s.length() > maxScanChars) {
                withheld.add(e.getKey());
                hits.merge("max_scan_bytes", 1, Integer::sum);
                changed = true;
                continue;
            }
            // key=value style: a field named like a secret is a secret, whatever its value looks like.
            String v = BuiltInRules.isSecretName(e.getKey()) ? mask(s, hits) : apply(s, hits);
            changed |= !v.equals(s);
            fields.put(e.getKey(), v);
        }
        if (!changed) {
            return new Result(r, hits, null);
        }
        if (!withheld.isEmpty()) {
            fields.put(WITHHELD_FIELD, String.join(",", withheld));
        }
        LogRecord.Builder b = r.toBuilder();
        b.message(message).service(service).instanceId(instance).region(region).traceId(trace).spanId(span);
        b.clearFields();
        fields.forEach(b::field);
        return new Result(b.build(), hits, null);
    }

    /**
     * Free text (a dead letter's raw line) with every rule applied; null when it is too long to check, so that it
     * is withheld rather than kept unchecked.
     */
    public String redactText(String text) {
        if (text.length() > maxScanChars) {
            return null;
        }
        return apply(text, new LinkedHashMap<>());
    }

    private static String mask(String value, Map<String, Integer> hits) {
        if (value.isEmpty()) {
            return value;
        }
        hits.merge(BuiltInRules.SECRET_FIELD_RULE, 1, Integer::sum);
        return "[REDACTED:" + BuiltInRules.SECRET_FIELD_RULE + "]";
    }

    /** Appends {@code replacement} with {@code $1}..{@code $9} replaced by the match's groups ({@code $$} is a dollar). */
    private static void expand(String replacement, Matcher m, StringBuilder sb) {
        for (int i = 0; i < replacement.length(); i++) {
            char c = replacement.charAt(i);
            if (c == '$' && i + 1 < replacement.length()) {
                char d = replacement.charAt(i + 1);
                if (d == '$') {
                    sb.append('$');
                    i++;
                    continue;
                }
                if (d >= '1' && d <= '9' && d - '0' <= m.groupCount()) {
                    String g = m.group(d - '0');
                    sb.append(g == null ? "" : g);
                    i++;
                    continue;
                }
            }
            sb.append(c);
        }
    }

    private String applyNullable(String text, Map<String, Integer> hits) {
        return text == null ? null : apply(text, hits);
    }

    private String apply(String text, Map<String, Integer> hits) {
        String out = text;
        for (Rule rule : rules) {
            if (!rule.mayMatch().test(out)) {
                continue;
            }
            Matcher m = rule.pattern().matcher(out);
            if (!m.find()) {
                continue;
            }
            StringBuilder sb = new StringBuilder(out.length());
            int last = 0;
            int count = 0;
            do {
                // The longest digit run may fail the check while a card number inside it passes.
                if (rule.luhn() && !Luhn.valid(m.group()) && !Luhn.anyWindowValid(m.group())) {
                    continue;
                }
                sb.append(out, last, m.start());
                expand(rule.replacement(), m, sb);
                last = m.end();
                count++;
            } while (m.find());
            if (count > 0) {
                sb.append(out, last, out.length());
                out = sb.toString();
                hits.merge(rule.name(), count, Integer::sum);
            }
        }
        return out;
    }
}
