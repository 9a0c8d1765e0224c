package dev.logpipe.query.internal.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.query.internal.http.BodyStream;
import dev.logpipe.query.internal.http.Params;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.query.internal.memory.AnswerMemory;
import dev.logpipe.query.internal.plan.Plan;
import dev.logpipe.query.internal.plan.TimeRange;
import dev.logpipe.query.internal.search.FanOut;
import dev.logpipe.query.internal.search.KeyMerge;
import dev.logpipe.query.internal.search.Pages;
import dev.logpipe.query.internal.search.SourceReader;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;

/**
 * {@code GET /api/v1/export} (docs/query.md#get-apiv1export): the records of a search, streamed as NDJSON (each
 * record's source as stored, one per line) or CSV (chosen columns), at most {@code limit} of them (default 10,000, at
 * most {@link #MAX_RECORDS}). It runs as a search's pages would, one after the other, each planned from where the last
 * ended (so the budget's cut is continued, as a cursor would), read under the query deadline and the tenant's answer
 * memory, written, and given back before the next: what an export holds is one page. The export keeps one of the
 * tenant's query slots while it streams. What is known before the first byte is said in headers (the range clamped to
 * the tenant's window: {@code X-Logpipe-Partial: max_window}); a failure after it (a shard that fails, a page that
 * does not finish in time, a client that stops reading) ends the response without its last chunk, so no client takes
 * a cut export for a whole one.
 */
public final class ExportEndpoint {
    /** The most records one export writes. */
    public static final int MAX_RECORDS = 100_000;

    static final int PAGE = 1000;
    /** The longest one export may stream (a client reading slowly cannot hold its query slot longer). */
    static final long MAX_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(5);

    static final List<String> DEFAULT_COLUMNS = List.of("event_time", "level", "service", "instance_id", "message");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Env env;

    public ExportEndpoint(Env env) {
        this.env = env;
    }

    /** What an export wrote, for the audit line. */
    public record Result(long records, long bytes) {}

    /**
     * Checks the request (a refusal is thrown before anything is written), then streams the export into
     * {@code response}. Throws, with the response cut, when it cannot finish.
     */
    public Result handle(Call call, Response response, AnswerMemory.Lease lease) throws Exception {
        Params p = call.params();
        ParsedQuery q = Scope.query(p);
        ShardSearcher.Order order = Scope.order(p);
        String format = p.get("format", "ndjson");
        if (!format.equals("ndjson") && !format.equals("csv")) {
            throw Params.bad("format: must be ndjson or csv, was \"" + format + "\"");
        }
        int limit = p.integer("limit", 10_000, 1, MAX_RECORDS);
        List<String> columns = columns(p);
        Instant now = env.clock().instant();
        TimeRange requested = Scope.range(p, now);
        call.audit().put("query", q.text());
        call.audit().put("format", format);
        Plan plan = env.planner()
                .plan(
                        call.tenant(),
                        ShardKind.RECORDS,
                        requested,
                        call.policy().maxWindow().toMillis(),
                        q,
                        order,
                        null);
        refuseUnreachable(plan);
        TimeRange range = plan.range();
        response.setStatus(200);
        response.getHeaders()
                .put(
                        HttpHeader.CONTENT_TYPE,
                        format.equals("csv") ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8");
        response.getHeaders()
                .put(
                        HttpHeader.CONTENT_DISPOSITION,
                        "attachment; filename=\"logpipe-" + call.tenant().replaceAll("[^A-Za-z0-9._-]", "_") + "-"
                                + Instant.ofEpochMilli(range.fromMillis())
                                        .toString()
                                        .replace(':', '-') + "."
                                + format + "\"");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Logpipe-Export-Limit", Integer.toString(limit));
        if (plan.clamped()) {
            response.getHeaders().put("X-Logpipe-Partial", "max_window");
        }
        BodyStream out = new BodyStream(response);
        if (format.equals("csv")) {
            out.text(Csv.row(columns));
        }
        long written = 0;
        long bytes = 0;
        After after = null;
        long began = System.nanoTime();
        while (written < limit) {
            if (System.nanoTime() - began > MAX_NANOS) {
                throw new IOException("the export streamed for longer than 5 minutes (a slow client?): cut after "
                        + written + " records");
            }
            if (after != null) {
                plan = env.planner()
                        .plan(
                                call.tenant(),
                                ShardKind.RECORDS,
                                range,
                                call.policy().maxWindow().toMillis(),
                                q,
                                order,
                                after);
                refuseUnreachable(plan);
            }
            int want = (int) Math.min(PAGE, limit - written);
            long deadline =
                    System.nanoTime() + env.config().limits().queryTimeout().toNanos();
            Pages pages = new Pages(env.fanOut(), plan, env.config().limits().shardConcurrency(), deadline);
            SourceReader.Read read;
            List<KeyMerge.Pick> winners;
            try {
                pages.collect(plan.shardQuery(), after, want);
                read = pages.sources(env.config().limits().maxAnswerBytes(), deadline, lease);
                winners = pages.winners();
                failIfAnyFailed(pages.outcomes());
            } finally {
                pages.close();
            }
            String[] sources = read.sources();
            if (sources.length == 0 && !winners.isEmpty()) {
                throw new IOException("a page of the export did not finish within limits.query_timeout");
            }
            for (String source : sources) {
                byte[] line = (format.equals("csv") ? Csv.row(cells(source, columns)) : source + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.bytes(line);
                bytes += line.length;
            }
            out.flush();
            lease.keep(0); // the page is written: its memory goes back before the next is read
            written += sources.length;
            if (sources.length < winners.size() || winners.size() == want) {
                ShardSearcher.Key last = winners.get(sources.length - 1).key();
                after = new After(last.eventTimeMillis(), last.recordId().text());
            } else if (plan.resumeAfter() != null && !plan.resumeAfter().equals(after)) {
                after = plan.resumeAfter();
            } else if (plan.resumeAfter() != null) { // planned the same cut again: it would never end
                throw new IOException("the export made no progress past " + after + "; cut after " + written);
            } else {
                break;
            }
        }
        call.audit().put("hits", written);
        return new Result(written, bytes);
    }

    /**
     * An export is whole or refused: when the budget leaves out a shard that no later page can reach (one day alone
     * over {@code max_documents} or {@code max_archive_bytes}: nothing searched, nothing to resume from), it is
     * refused (before the first byte) or cut (after it), never ended as if complete.
     */
    private static void refuseUnreachable(Plan plan) {
        if (!plan.skipped().isEmpty() && plan.resumeAfter() == null) {
            Plan.Skipped first = plan.skipped().get(0);
            throw new Refusal(
                    400,
                    "export_over_budget",
                    "the query's budget leaves out " + plan.skipped().size() + " day(s) from "
                            + first.shard().day()
                            + " (" + first.reason() + ") that an export cannot reach; an export is whole or "
                            + "refused: narrow the range or the query");
        }
    }

    private static void failIfAnyFailed(Map<ShardId, FanOut.Outcome<?>> outcomes) throws IOException {
        for (Map.Entry<ShardId, FanOut.Outcome<?>> e : outcomes.entrySet()) {
            if (!e.getValue().ok()) {
                throw new IOException("shard " + e.getKey() + " failed during the export: "
                        + e.getValue().failure());
            }
        }
    }

    private static List<String> columns(Params p) {
        String text = p.get("columns");
        if (text == null || text.isBlank()) {
            return DEFAULT_COLUMNS;
        }
        List<String> out = new ArrayList<>();
        for (String c : text.split(",", -1)) {
            String name = c.strip();
            if (name.isEmpty() || name.length() > 256) {
                throw Params.bad("columns: a comma-separated list of field names (each 1 to 256 characters)");
            }
            out.add(name);
        }
        if (out.size() > 100) {
            throw Params.bad("columns: at most 100, was " + out.size());
        }
        return out;
    }

    /** The record's value of each column: a top-level key, or {@code fields.<name>}; empty when absent. */
    static List<String> cells(String source, List<String> columns) throws IOException {
        JsonNode record = JSON.readTree(source);
        List<String> out = new ArrayList<>(columns.size());
        for (String c : columns) {
            JsonNode v = record.get(c);
            if (v == null && c.startsWith("fields.")) {
                v = record.path("fields").get(c.substring("fields.".length()));
            }
            out.add(v == null || v.isNull() ? "" : v.isValueNode() ? v.asText() : v.toString());
        }
        return out;
    }
}
