package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.query.QueryProcess;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code GET /api/v1/export} over HTTP on the query benchmark's records, against the same records fetched the way a
 * client without export would: {@code /api/v1/search} pages of 1,000 with cursors. Rounds alternate (export NDJSON,
 * export CSV, search pages) so the box's noise falls on all three; each prints records/s and MB/s of body read.
 *
 * <pre>
 * java -cp bench/target/logpipe-bench.jar dev.logpipe.bench.ExportBench [--records 2000000] [--export 100000]
 *   [--rounds 5] [--dir /tmp/logpipe-export-bench] [--reuse]
 * </pre>
 */
public final class ExportBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ExportBench() {}

    public static void main(String[] args) throws Exception {
        long records = 2_000_000;
        int export = 100_000;
        int rounds = 5;
        Path dir = Path.of("/tmp/logpipe-export-bench");
        boolean reuse = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--export" -> export = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path data = QueryBench.data(dir, records, reuse);
        try (QueryProcess q = QueryBench.process(data, "limits:\n  max_limit: 1000\n")) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + q.address().getPort();
            String range = "from=now-10d&to=now";
            System.out.printf(Locale.ROOT, "%,d records, %,d per export, %d rounds%n", records, export, rounds);
            int n = export;
            for (int round = 0; round < rounds; round++) {
                timed(
                        "export NDJSON",
                        n,
                        () -> body(http, base + "/api/v1/export?format=ndjson&limit=" + n + "&" + range));
                timed("export CSV", n, () -> body(http, base + "/api/v1/export?format=csv&limit=" + n + "&" + range));
                timed("search pages of 1,000", n, () -> pages(http, base, range, n));
            }
        }
    }

    interface Fetch {
        long bytes() throws Exception;
    }

    private static void timed(String what, int records, Fetch f) throws Exception {
        long t0 = System.nanoTime();
        long bytes = f.bytes();
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "%-22s %,9d records in %6.2f s: %,9.0f records/s, %6.1f MB/s%n",
                what,
                records,
                s,
                records / s,
                bytes / s / 1e6);
    }

    /** Reads a streamed body to its end; returns its bytes. */
    private static long body(HttpClient http, String uri) throws Exception {
        HttpResponse<InputStream> r = http.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .header("Authorization", "Bearer " + QueryBench.KEY)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " -> " + r.statusCode());
        }
        long n = 0;
        byte[] buf = new byte[1 << 16];
        try (InputStream in = r.body()) {
            for (int k; (k = in.read(buf)) > 0; ) {
                n += k;
            }
        }
        return n;
    }

    /** The same records through search pages of 1,000 with cursors; returns the bodies' bytes. */
    private static long pages(HttpClient http, String base, String range, int records) throws Exception {
        long bytes = 0;
        String cursor = null;
        for (int got = 0; got < records; got += 1000) {
            String body = QueryBench.get(
                    http, base + "/api/v1/search?limit=1000&" + range + (cursor == null ? "" : "&cursor=" + cursor));
            bytes += body.length();
            JsonNode j = JSON.readTree(body);
            cursor = j.path("next_cursor").asText(null);
            if (cursor == null) {
                break;
            }
        }
        return bytes;
    }
}
