package dev.logpipe.archive.tier;

import dev.logpipe.archive.format.ArchiveFooter;
import dev.logpipe.archive.format.ArchiveReader;
import dev.logpipe.archive.format.Label;
import dev.logpipe.archive.format.TokenFilter;
import dev.logpipe.archive.format.Tokens;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.read.ShardQuery;
import dev.logpipe.record.Level;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What an archive says about its blocks without any block being read: the footer's time ranges and label values and
 * each block's token filter, kept in memory so a query learns which blocks it could match
 * (docs/archive.md#searching). Immutable.
 */
final class BlockIndex {
    private final ArchiveReader reader;
    private final ArchiveFooter footer;
    private final TokenFilter[] filters;
    private final long bytes;

    private BlockIndex(ArchiveReader reader, TokenFilter[] filters, long bytes) {
        this.reader = reader;
        this.footer = reader.footer();
        this.filters = filters;
        this.bytes = bytes;
    }

    /** The archive, for reading blocks (ranged reads of its object). */
    ArchiveReader reader() {
        return reader;
    }

    ArchiveFooter.BlockInfo block(int index) {
        return footer.blocks().get(index);
    }

    /**
     * The levels a query matches when its matches are decided by event time and level alone (everything, or one
     * {@code level} value) and the service added no filter: then a count or histogram reads the blocks' time and
     * level columns instead of restoring them. Null for any other query.
     */
    static Predicate<Level> levelsOnly(ShardQuery q) {
        if (!q.filters().isEmpty()) {
            return null;
        }
        QueryNode root = q.query().root();
        if (root instanceof QueryNode.MatchAll) {
            return level -> true;
        }
        if (root instanceof QueryNode.Text t && Fields.LEVEL.equals(t.field())) {
            String value = t.text();
            return level -> level.name().equals(value);
        }
        return null;
    }

    /** Reads the filters of every block (checked by their CRC; a corrupt one throws, naming the archive). */
    static BlockIndex read(ArchiveReader reader) throws IOException {
        int n = reader.footer().blocks().size();
        TokenFilter[] filters = new TokenFilter[n];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            filters[i] = reader.filter(i);
            bytes += filters[i].sizeBytes() + 256L; // the block's footer entry, roughly
        }
        return new BlockIndex(reader, filters, bytes);
    }

    /**
     * The day's values of each label, as the footers list them per block (unioned), into {@code values}; a label
     * some block lists only partly into {@code truncated}.
     */
    void labels(
            java.util.SortedMap<String, java.util.SortedSet<String>> values, java.util.SortedSet<String> truncated) {
        for (ArchiveFooter.BlockInfo b : footer.blocks()) {
            b.truncatedLabels().forEach(l -> truncated.add(l.field()));
            b.labels().forEach((l, v) -> {
                if (!v.isEmpty()) {
                    values.computeIfAbsent(l.field(), k -> new java.util.TreeSet<>())
                            .addAll(v);
                }
            });
        }
    }

    /** Memory this index holds, for the cache's bound. */
    long bytes() {
        return bytes;
    }

    int blocks() {
        return filters.length;
    }

    /**
     * The blocks a record matching {@code q} could be in: its time range overlaps the query's, it may hold one of the
     * values of every label the query requires, and its token filter may hold a token of every group of message tokens
     * the query requires.
     */
    List<Integer> candidates(ShardQuery q) {
        Map<String, Set<String>> labels = q.query().requiredLabels();
        List<Set<String>> tokens = q.query().requiredMessageTokens();
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < filters.length; i++) {
            ArchiveFooter.BlockInfo b = footer.blocks().get(i);
            if (b.maxEventTimeMillis() < q.fromMillis() || b.minEventTimeMillis() >= q.toMillis()) {
                continue;
            }
            if (mayHoldLabels(b, labels) && mayHoldTokens(filters[i], tokens)) {
                out.add(i);
            }
        }
        return out;
    }

    private static boolean mayHoldLabels(ArchiveFooter.BlockInfo b, Map<String, Set<String>> required) {
        for (Label label : Label.values()) {
            Set<String> values = required.get(label.field());
            if (values != null && values.stream().noneMatch(v -> b.mayHold(label, v))) {
                return false;
            }
        }
        return true;
    }

    private static boolean mayHoldTokens(TokenFilter filter, List<Set<String>> groups) {
        for (Set<String> group : groups) {
            if (group.stream().noneMatch(t -> filter.mightContain(Tokens.message(t)))) {
                return false;
            }
        }
        return true;
    }
}
