package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /api/v1/export}: streamed NDJSON and CSV over real HTTP, pages of a search, bounded and audited. */
class ExportTest {
    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    static final int PER_DAY = 1300;

    @TempDir
    Path data;

    QueryProcess q;

    /** 1,300 acme records on each of the 3 days before NOW (ids a-<day>-<i>), one globex record per acme one. */
    void start(String config) throws Exception {
        List<LogRecord> rs = new ArrayList<>();
        for (int d = 0; d < 3; d++) {
            for (int i = 0; i < PER_DAY; i++) {
                Instant t = NOW.minusSeconds(86_400L * d + 60 + i);
                rs.add(record("acme", "a-" + d + "-" + i, t, "order CO-" + i + " done")
                        .level(i % 10 == 0 ? Level.ERROR : Level.INFO)
                        .field("took_ms", i)
                        .build());
                rs.add(record("globex", "g-" + d + "-" + i, t, "globex secret " + i)
                        .build());
            }
        }
        rs.add(record("acme", "odd", NOW.minusSeconds(10), "=HYPERLINK(\"http://x\",\"click\"), said \"hi\"\nline 2")
                .build());
        QueryFixture.write(data, rs);
        q = QueryFixture.start(data, config, InstantSource.fixed(NOW));
    }

    @AfterEach
    void stop() throws Exception {
        if (q != null) {
            q.close();
        }
    }

    static List<String> ids(String ndjson) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : ndjson.split("\n")) {
            out.add(QueryFixture.JSON.readTree(line).get("record_id").asText());
        }
        return out;
    }

    @Test
    void anExportStreamsEveryRecordOfTheRangeAcrossPagesAndDaysNewestFirstAndOnlyTheCallersOwn() throws Exception {
        start("limits:\n  max_shards: 1\n"); // the budget's cut is continued page after page, as a cursor would

        HttpResponse<String> r = get(q, "/api/v1/export?q=" + enc("done") + "&from=now-4d&limit=100000", ACME_KEY);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/x-ndjson");
        assertThat(r.headers().firstValue("Content-Disposition").orElse(""))
                .startsWith("attachment; filename=\"logpipe-acme-");
        List<String> ids = ids(r.body());
        assertThat(ids).hasSize(3 * PER_DAY).doesNotHaveDuplicates();
        assertThat(ids.get(0)).isEqualTo("a-0-0");
        assertThat(ids.get(ids.size() - 1)).isEqualTo("a-2-" + (PER_DAY - 1));
        assertThat(r.body()).doesNotContain("globex");
        String audit = Files.readString(data.resolve("audit").resolve("query-audit.jsonl"));
        assertThat(audit)
                .contains("\"endpoint\":\"export\"")
                .contains("\"outcome\":\"exported\"")
                .contains("\"hits\":" + 3 * PER_DAY);
    }

    @Test
    void oldestFirstTheBudgetsCutIsContinuedDayAfterDayToo() throws Exception {
        start("limits:\n  max_shards: 1\n");

        HttpResponse<String> r =
                get(q, "/api/v1/export?q=" + enc("done") + "&from=now-4d&order=asc&limit=100000", ACME_KEY);

        assertThat(r.statusCode()).isEqualTo(200);
        List<String> ids = ids(r.body());
        assertThat(ids).hasSize(3 * PER_DAY).doesNotHaveDuplicates();
        assertThat(ids.get(0)).isEqualTo("a-2-" + (PER_DAY - 1));
        assertThat(ids.get(ids.size() - 1)).isEqualTo("a-0-0");
    }

    @Test
    void anExportTheBudgetCannotCoverWholeIsRefusedNotCut() throws Exception {
        start("limits:\n  max_documents: 1000\n"); // each day holds 2,600 records (two tenants)

        HttpResponse<String> r = get(q, "/api/v1/export?q=" + enc("done") + "&from=now-4d", ACME_KEY);

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("export_over_budget").contains("max_documents");
        assertThat(r.headers().firstValue("Content-Disposition")).isEmpty();
    }

    @Test
    void anExportStopsAtItsLimitOldestFirstWhenAsked() throws Exception {
        start("");

        HttpResponse<String> r =
                get(q, "/api/v1/export?q=" + enc("done") + "&from=now-4d&order=asc&limit=1500", ACME_KEY);

        List<String> ids = ids(r.body());
        assertThat(ids).hasSize(1500).doesNotHaveDuplicates();
        assertThat(ids.get(0)).isEqualTo("a-2-" + (PER_DAY - 1));
        assertThat(r.headers().firstValue("X-Logpipe-Export-Limit")).hasValue("1500");
    }

    @Test
    void aCsvExportQuotesWhatNeedsQuotingAndDefusesFormulas() throws Exception {
        start("");

        HttpResponse<String> r = get(
                q,
                "/api/v1/export?format=csv&from=now-1h&columns=" + enc("event_time,level,fields.took_ms,message,nope"),
                ACME_KEY);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
        String[] rows = r.body().split("\r\n");
        assertThat(rows[0]).isEqualTo("event_time,level,fields.took_ms,message,nope");
        assertThat(rows[1])
                .isEqualTo(
                        "2026-12-01T11:59:50.000Z,INFO,,\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\"), said \"\"hi\"\"\nline 2\",");
        assertThat(rows[2]).isEqualTo("2026-12-01T11:59:00.000Z,ERROR,0,order CO-0 done,");
    }

    @Test
    void aBadExportIsRefusedBeforeAnyByteAsAnyBadQueryIs() throws Exception {
        start("");

        HttpResponse<String> format = get(q, "/api/v1/export?format=xml", ACME_KEY);
        HttpResponse<String> limit = get(q, "/api/v1/export?limit=100001", ACME_KEY);
        HttpResponse<String> columns = get(q, "/api/v1/export?format=csv&columns=" + enc("a,,b"), ACME_KEY);
        HttpResponse<String> anonymous = get(q, "/api/v1/export", null);

        assertThat(format.statusCode()).isEqualTo(400);
        assertThat(format.body()).contains("format: must be ndjson or csv");
        assertThat(format.headers().firstValue("Content-Disposition")).isEmpty();
        assertThat(limit.statusCode()).isEqualTo(400);
        assertThat(columns.statusCode()).isEqualTo(400);
        assertThat(anonymous.statusCode()).isEqualTo(401);
    }
}
