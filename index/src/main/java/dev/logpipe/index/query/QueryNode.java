package dev.logpipe.index.query;

import java.util.List;
import java.util.Objects;

/**
 * The syntax tree of a query in the classic syntax, before analysis: what the user wrote, with the parser's decisions
 * (which clause is required, which words go together) made and nothing engine-specific in it. A {@code field} of
 * null is the default field, which the engine picks per shard kind ({@code message}, or {@code raw} on dead-letter
 * shards). Strings are as the classic parser hands them to its factories: escapes removed, except in a
 * {@link Wildcard} pattern (where {@code \*} is a literal star) and a {@link Regexp} pattern.
 */
public sealed interface QueryNode {

    /** Every record ({@code *:*}, {@code *}). */
    record MatchAll() implements QueryNode {}

    /** Records that hold a value in {@code field} ({@code field:*}); never the default field (that is {@link MatchAll}). */
    record Exists(String field) implements QueryNode {
        public Exists {
            Objects.requireNonNull(field, "field");
        }
    }

    /**
     * Text to analyse: an unquoted term (several words when they were grouped on their own, {@code (a b)}), or a
     * quoted phrase with its slop. A term whose analysis leaves no token never becomes a node.
     */
    record Text(String field, String text, boolean quoted, int slop) implements QueryNode {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * Unquoted words side by side among other clauses ({@code a b -c}): analysed together, each word becomes an optional
     * clause of the enclosing {@link Bool}. Only ever a {@link Clause}'s node. Its clause is {@code SHOULD}, or
     * {@code MUST} when an {@code AND} reached back to it past a clause that analysed to nothing
     * ({@code a b "" AND c}), which requires its last word only, as the classic parser does.
     */
    record Words(String field, String text) implements QueryNode {
        public Words {
            Objects.requireNonNull(text, "text");
        }
    }

    /** Terms starting with {@code prefix} ({@code CO-99*}). */
    record Prefix(String field, String prefix) implements QueryNode {
        public Prefix {
            Objects.requireNonNull(prefix, "prefix");
        }
    }

    /**
     * A {@code *} / {@code ?} pattern ({@code hello-ab12-?7}); the parser refuses one that starts with either, except
     * a lone {@code *} ({@link MatchAll} or {@link Exists}).
     */
    record Wildcard(String field, String pattern) implements QueryNode {
        public Wildcard {
            Objects.requireNonNull(pattern, "pattern");
        }
    }

    /** A regular expression between slashes ({@code /[a-z]+/}), in Lucene's regular expression syntax. */
    record Regexp(String field, String pattern) implements QueryNode {
        public Regexp {
            Objects.requireNonNull(pattern, "pattern");
        }
    }

    /** Terms within an edit distance ({@code timeout~1}): {@code minSimilarity} as written after the {@code ~}. */
    record Fuzzy(String field, String term, float minSimilarity) implements QueryNode {
        public Fuzzy {
            Objects.requireNonNull(term, "term");
        }
    }

    /**
     * A range ({@code [a TO b]}, {@code {a TO b}}, {@code >N}, {@code <=N}); a null bound is open. Bounds are strings as
     * written: the engine reads numbers on {@code fields.*} and times on {@code event_time} / {@code observed_time}
     * (where {@code *} is also open), and compares anything else as a keyword.
     */
    record Range(String field, String lower, String upper, boolean lowerInclusive, boolean upperInclusive)
            implements QueryNode {}

    /** Clauses combined; no clause is a blank text, and no clauses at all matches nothing. */
    record Bool(List<Clause> clauses) implements QueryNode {
        public Bool {
            clauses = List.copyOf(clauses);
        }
    }

    /** A node boosted by a factor ({@code a^2}, {@code (a b)^0.5}). */
    record Boost(QueryNode node, float boost) implements QueryNode {
        public Boost {
            Objects.requireNonNull(node, "node");
        }
    }

    /** One clause of a {@link Bool}. */
    record Clause(Occur occur, QueryNode node) {
        public Clause {
            Objects.requireNonNull(occur, "occur");
            Objects.requireNonNull(node, "node");
        }
    }

    /** How a clause takes part: required, optional (at least one when nothing is required), or excluded. */
    enum Occur {
        MUST,
        SHOULD,
        MUST_NOT
    }
}
