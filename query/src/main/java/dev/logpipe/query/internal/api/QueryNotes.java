package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardMetadata;
import dev.logpipe.query.internal.plan.Plan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What an answer says about how its query was read (docs/query.md#search-answers-say-how-they-read-the-query):
 * {@code resolved_fields}, each bare name the query used and the structured field it means, and {@code warnings},
 * one per structured field the query names that no shard of the range holds (read from the shards' field metadata,
 * as {@code GET /api/v1/fields} reads it), with the nearest name that does exist. Nothing is read when the query names
 * no structured field, so most queries cost nothing here; nothing is warned when a shard's metadata is missing or
 * its field list was truncated (a field could hide there).
 */
final class QueryNotes {
    private QueryNotes() {}

    static void describe(ObjectNode root, ParsedQuery q, Plan plan, Env env) throws IOException {
        if (!q.resolvedFields().isEmpty()) {
            ObjectNode r = root.putObject("resolved_fields");
            q.resolvedFields().forEach(r::put);
        }
        List<String> warnings = warnings(q, plan, env);
        if (!warnings.isEmpty()) {
            ArrayNode w = root.putArray("warnings");
            warnings.forEach(w::add);
        }
    }

    static List<String> warnings(ParsedQuery q, Plan plan, Env env) throws IOException {
        List<String> structured = new ArrayList<>();
        for (String f : q.fieldNames()) {
            if (f.startsWith(Fields.FIELDS_PREFIX)) {
                structured.add(f);
            }
        }
        if (structured.isEmpty()) {
            return List.of();
        }
        Set<String> known = new HashSet<>();
        List<ShardId> shards = new ArrayList<>(plan.searched());
        plan.skipped().forEach(s -> shards.add(s.shard()));
        for (ShardId id : shards) {
            Optional<ShardMetadata> m = env.source().latestMetadata(id);
            if (m.isEmpty() || m.get().fieldsTruncated()) {
                return List.of(); // a field may be held where we cannot see it
            }
            m.get().fields().keySet().forEach(name -> known.add(Fields.FIELDS_PREFIX + name));
        }
        Map<String, String> written = new HashMap<>();
        q.resolvedFields().forEach((bare, field) -> written.put(field, bare));
        List<String> out = new ArrayList<>();
        for (String f : structured) {
            if (known.contains(f)) {
                continue;
            }
            String name = written.getOrDefault(f, f);
            String w = "no field " + name + " in this range";
            String near = nearest(f, known);
            out.add(near == null ? w : w + "; did you mean " + near + "?");
        }
        return out;
    }

    /**
     * The known field nearest to {@code field}: the same name but for case and punctuation, then one ending in the
     * same last part ({@code fields.status} for {@code fields.http.status}), then one within two edits; null when none.
     */
    static String nearest(String field, Set<String> known) {
        String bare = field.substring(Fields.FIELDS_PREFIX.length());
        String squeezed = squeeze(bare);
        String best = null;
        int bestScore = Integer.MAX_VALUE;
        for (String k : known) {
            String kb = k.substring(Fields.FIELDS_PREFIX.length());
            int score;
            if (squeeze(kb).equals(squeezed)) {
                score = 0;
            } else if (kb.endsWith("." + bare) || bare.endsWith("." + kb)) {
                score = 1;
            } else {
                int d = distance(squeezed, squeeze(kb), 2);
                score = d <= 2 ? 2 + d : Integer.MAX_VALUE;
            }
            if (score < bestScore || (score == bestScore && best != null && k.compareTo(best) < 0)) {
                bestScore = score;
                best = score == Integer.MAX_VALUE ? null : k;
            }
        }
        return best;
    }

    private static String squeeze(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isLetterOrDigit(c)) {
                b.append(c);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }

    /** Edit distance of a and b, or {@code max + 1} once it is past {@code max}. */
    private static int distance(String a, String b, int max) {
        if (Math.abs(a.length() - b.length()) > max) {
            return max + 1;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > max) {
                return max + 1;
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
