package dev.logpipe.index.query;

import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Exists;
import dev.logpipe.index.query.QueryNode.Fuzzy;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Wildcard;
import dev.logpipe.index.query.QueryNode.Words;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.record.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What logpipe reads into a classic tree beyond the classic grammar (docs/search.md), in one walk per request:
 * <ul>
 *   <li>a boolean of only excluded clauses ({@code NOT level:INFO}, {@code -a -b}) is everything except them (a
 *       required {@link MatchAll} is added), at any depth;
 *   <li>a bare name that is not a top-level field ({@link Fields#TOP_LEVEL}) is the structured field
 *       {@code fields.<name>} ({@code took_ms:>500}), and the answer says so ({@link ParsedQuery#resolvedFields});
 *   <li>a value on {@code level}, which records hold normalized, is normalized the same way ({@code level:error} and
 *       {@code level:warning} find {@code ERROR} and {@code WARN}); a pattern on it is upper-cased.
 * </ul>
 */
final class Readings {
    private final Map<String, String> resolved = new LinkedHashMap<>();

    private Readings() {}

    /** The tree as logpipe reads it, and each bare name to the field it resolved to (in the order written). */
    record Read(QueryNode root, Map<String, String> resolved) {}

    /** @throws InvalidQuery a resolved range's numeric bound cannot be read ({@link LeafChecks#range}) */
    static Read of(QueryNode root) {
        Readings r = new Readings();
        QueryNode out = r.read(root);
        return new Read(out, r.resolved);
    }

    private QueryNode read(QueryNode n) {
        if (n instanceof MatchAll) {
            return n;
        }
        if (n instanceof Boost b) {
            return new Boost(read(b.node()), b.boost());
        }
        if (n instanceof Bool b) {
            return bool(b);
        }
        if (n instanceof Text t) {
            String f = field(t.field());
            return new Text(f, level(f, t.text()), t.quoted(), t.slop());
        }
        if (n instanceof Words w) {
            String f = field(w.field());
            return new Words(f, level(f, w.text()));
        }
        if (n instanceof Prefix p) {
            String f = field(p.field());
            return new Prefix(f, upper(f, p.prefix()));
        }
        if (n instanceof Wildcard w) {
            String f = field(w.field());
            return new Wildcard(f, upper(f, w.pattern()));
        }
        if (n instanceof Fuzzy z) {
            String f = field(z.field());
            return new Fuzzy(f, upper(f, z.term()), z.minSimilarity());
        }
        if (n instanceof Regexp x) {
            return new Regexp(field(x.field()), x.pattern()); // a class like \d would change meaning upper-cased
        }
        if (n instanceof Exists e) {
            return new Exists(field(e.field()));
        }
        Range r = (Range) n;
        String f = field(r.field());
        if (f != null && !f.equals(r.field())) {
            LeafChecks.resolvedRange(f, r.lower(), r.upper()); // now a structured field: numeric bounds are read
        }
        return new Range(f, r.lower(), r.upper(), r.lowerInclusive(), r.upperInclusive());
    }

    private QueryNode bool(Bool b) {
        List<Clause> out = new ArrayList<>(b.clauses().size() + 1);
        boolean positive = false;
        for (Clause c : b.clauses()) {
            out.add(new Clause(c.occur(), read(c.node())));
            positive |= c.occur() != Occur.MUST_NOT;
        }
        if (!positive && !out.isEmpty()) {
            out.add(0, new Clause(Occur.MUST, new MatchAll())); // only exclusions: everything except them
        }
        return new Bool(out);
    }

    /** The field a name means: null (the default field) and top-level and structured names as written. */
    private String field(String name) {
        if (name == null
                || name.equals("*")
                || Fields.TOP_LEVEL.contains(name)
                || name.startsWith(Fields.FIELDS_PREFIX)) {
            return name;
        }
        String f = Fields.FIELDS_PREFIX + name;
        resolved.putIfAbsent(name, f);
        return f;
    }

    private static String level(String field, String text) {
        if (!Fields.LEVEL.equals(field)) {
            return text;
        }
        Level l = Level.normalize(text);
        return l != Level.UNKNOWN ? l.name() : text.toUpperCase(Locale.ROOT);
    }

    private static String upper(String field, String text) {
        return Fields.LEVEL.equals(field) ? text.toUpperCase(Locale.ROOT) : text;
    }
}
