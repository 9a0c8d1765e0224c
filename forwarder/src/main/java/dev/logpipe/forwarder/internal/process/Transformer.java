package dev.logpipe.forwarder.internal.process;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.logpipe.forwarder.config.ForwarderConfig.OnNoMatch;
import dev.logpipe.forwarder.config.ForwarderConfig.Transform;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Applies the configured transforms: static fields, an RE2 extract pattern whose named groups become
 * fields (groups named service, level, trace_id, span_id or region set those schema fields), and renames of
 * field names. With {@code on_no_match: skip} a record the pattern does not match is skipped (it still
 * advances the watermark). Thread-safe.
 */
public final class Transformer {
    private final Map<String, String> rename;
    private final Attributes staticAttributes;
    private final Pattern extract;
    private final Map<String, Integer> groups;
    private final boolean skipOnNoMatch;

    public Transformer(Transform config) {
        this.rename = config.renameFields();
        this.extract = config.extractPattern() == null ? null : Pattern.compile(config.extractPattern());
        this.groups = extract == null ? Map.of() : extract.namedGroups();
        this.skipOnNoMatch = config.onNoMatch() == OnNoMatch.SKIP;
        Map<String, String> fields = new LinkedHashMap<>();
        config.addFields().forEach(fields::put);
        this.staticAttributes = build(fields);
    }

    /** True when every record gets the same attributes, so callers can skip per-record work. */
    public boolean isStatic() {
        return extract == null;
    }

    /** Attributes shared by every record when {@link #isStatic()}. */
    public Attributes staticAttributes() {
        return staticAttributes;
    }

    /** The attributes for one record, or null if the record is to be skipped. */
    public Attributes apply(CharSequence text) {
        if (extract == null) {
            return staticAttributes;
        }
        Matcher m = extract.matcher(text);
        if (!m.find()) {
            return skipOnNoMatch ? null : staticAttributes;
        }
        Map<String, String> fields = new LinkedHashMap<>(staticAttributes.fields());
        if (staticAttributes.service() != null) {
            fields.put("service", staticAttributes.service());
        }
        if (staticAttributes.level() != null) {
            fields.put("level", staticAttributes.level());
        }
        if (staticAttributes.traceId() != null) {
            fields.put("trace_id", staticAttributes.traceId());
        }
        if (staticAttributes.spanId() != null) {
            fields.put("span_id", staticAttributes.spanId());
        }
        if (staticAttributes.region() != null) {
            fields.put("region", staticAttributes.region());
        }
        for (Map.Entry<String, Integer> g : groups.entrySet()) {
            String v = m.group(g.getValue());
            if (v != null) {
                fields.put(g.getKey(), v);
            }
        }
        return build(fields);
    }

    private Attributes build(Map<String, String> raw) {
        Map<String, String> fields = new LinkedHashMap<>();
        String service = null;
        String level = null;
        String traceId = null;
        String spanId = null;
        String region = null;
        for (Map.Entry<String, String> e : raw.entrySet()) {
            String name = rename.getOrDefault(e.getKey(), e.getKey());
            switch (name) {
                case "service" -> service = e.getValue();
                case "level" -> level = e.getValue();
                case "trace_id" -> traceId = e.getValue();
                case "span_id" -> spanId = e.getValue();
                case "region" -> region = e.getValue();
                default -> fields.put(name, e.getValue());
            }
        }
        return new Attributes(service, level, traceId, spanId, region, fields);
    }
}
