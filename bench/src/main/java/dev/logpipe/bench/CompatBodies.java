package dev.logpipe.bench;

import com.google.protobuf.CodedOutputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.xerial.snappy.Snappy;

/**
 * The load generator's records in the collector's compatible wire formats: the same ~250-byte records as the native
 * NDJSON body (message with some secret-shaped text, service, instance, level, time, two fields), as an Elasticsearch
 * {@code _bulk} body, an OTLP/HTTP protobuf {@code ExportLogsServiceRequest}, a Loki snappy protobuf push, and
 * octet-counted RFC 5424 syslog frames.
 */
final class CompatBodies {
    enum Protocol {
        NATIVE,
        BULK,
        OTLP,
        LOKI,
        SYSLOG
    }

    /** Sends one request (or one batch of syslog frames); the HTTP status (200 for a written syslog batch). */
    interface Sender {
        int send(byte[] request) throws IOException;

        default void close() {}
    }

    /**
     * Octet-counted RFC 5424 frames on one TCP connection: a "request" is written, and TCP flow control paces the
     * writer to what the collector reads (syslog has no answer: committed records are read from the metrics).
     */
    static final class SyslogSender implements Sender {
        private final Socket socket;
        private final OutputStream out;

        SyslogSender(String host, int port) {
            try {
                socket = new Socket(host, port);
                out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public int send(byte[] frames) throws IOException {
            out.write(frames);
            out.flush();
            return 200;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing
            }
        }
    }

    /** The records as octet-counted RFC 5424 frames (app name the service, host name the instance). */
    static byte[] syslog(int seed, int records) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(records * 260);
        for (int i = 0; i < records; i++) {
            String s = SERVICES[i % 4];
            byte[] msg = ("<14>1 2026-12-01T10:00:00." + (100 + i % 900) + "Z " + s + "-" + i % 3 + " " + s
                            + " - - [meta http.status=\"200\" region=\"eu-1\"] " + message(seed, i))
                    .getBytes(StandardCharsets.UTF_8);
            byte[] len = (msg.length + " ").getBytes(StandardCharsets.US_ASCII);
            b.write(len, 0, len.length);
            b.write(msg, 0, msg.length);
        }
        return b.toByteArray();
    }

    private static final String[] SERVICES = {"checkout", "payments", "search", "auth"};

    private CompatBodies() {}

    static String message(int seed, int i) {
        return "request handled path=/api/v1/items/" + (seed * 100_000 + i) + " status=200 duration_ms=" + i % 97
                + (i % 50 == 0 ? " password=hunter2" : "")
                + (i % 77 == 0 ? " Authorization: Bearer abcdefghijklmnop" : "")
                + " user=alice trace=abcdef0123456789";
    }

    /** The whole HTTP request of body {@code seed} in {@code p}. */
    static byte[] request(Protocol p, int seed, int records, String auth) {
        return switch (p) {
            case BULK -> RawHttpClient.post("/_bulk", "application/x-ndjson", auth, bulk(seed, records));
            case OTLP -> RawHttpClient.post("/v1/logs", "application/x-protobuf", auth, otlp(seed, records));
            case LOKI -> RawHttpClient.post("/loki/api/v1/push", "application/x-protobuf", auth, loki(seed, records));
            case SYSLOG -> syslog(seed, records);
            case NATIVE -> throw new IllegalArgumentException("the native body is CollectorLoadBench's own");
        };
    }

    static byte[] bulk(int seed, int records) {
        StringBuilder b = new StringBuilder(records * 320);
        for (int i = 0; i < records; i++) {
            String s = SERVICES[i % 4];
            b.append("{\"create\":{\"_index\":\"bench\"}}\n{\"@timestamp\":\"2026-12-01T10:00:00.")
                    .append(100 + i % 900)
                    .append("Z\",\"message\":\"")
                    .append(message(seed, i))
                    .append("\",\"service\":{\"name\":\"")
                    .append(s)
                    .append("\"},\"host\":{\"name\":\"")
                    .append(s)
                    .append('-')
                    .append(i % 3)
                    .append("\"},\"log\":{\"level\":\"info\"},\"http\":{\"status\":200},\"region\":\"eu-1\"}\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** One ResourceLogs per service and instance (as an SDK sends), each with its records. */
    static byte[] otlp(int seed, int records) {
        return proto(out -> {
            for (int group = 0; group < 12; group++) {
                int g = group;
                byte[] resourceLogs = proto(rl -> {
                    String s = SERVICES[g % 4];
                    rl.writeByteArray(1, proto(res -> {
                        res.writeByteArray(1, keyValue("service.name", s));
                        res.writeByteArray(1, keyValue("service.instance.id", s + "-" + g % 3));
                    }));
                    rl.writeByteArray(2, proto(scope -> {
                        for (int i = g; i < records; i += 12) {
                            int n = i;
                            scope.writeByteArray(2, proto(r -> {
                                r.writeFixed64(1, 1_764_583_200_000_000_000L + (100 + n % 900) * 1_000_000L);
                                r.writeEnum(2, 9);
                                r.writeByteArray(5, proto(v -> v.writeString(1, message(seed, n))));
                                r.writeByteArray(6, proto(kv -> {
                                    kv.writeString(1, "http.status");
                                    kv.writeByteArray(2, proto(v -> v.writeInt64(3, 200)));
                                }));
                                r.writeByteArray(6, keyValue("region", "eu-1"));
                            }));
                        }
                    }));
                });
                out.writeByteArray(1, resourceLogs);
            }
        });
    }

    /** One stream per service and instance, as Promtail and Alloy batch. */
    static byte[] loki(int seed, int records) {
        byte[] push = proto(out -> {
            for (int group = 0; group < 12; group++) {
                int g = group;
                String s = SERVICES[g % 4];
                out.writeByteArray(1, proto(stream -> {
                    stream.writeString(
                            1,
                            "{service_name=\"" + s + "\", instance=\"" + s + "-" + g % 3
                                    + "\", level=\"info\", region=\"eu-1\"}");
                    for (int i = g; i < records; i += 12) {
                        int n = i;
                        stream.writeByteArray(2, proto(e -> {
                            e.writeByteArray(1, proto(ts -> {
                                ts.writeInt64(1, 1_764_583_200L);
                                ts.writeInt32(2, (100 + n % 900) * 1_000_000);
                            }));
                            e.writeString(2, message(seed, n));
                        }));
                    }
                }));
            }
        });
        try {
            return Snappy.compress(push);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] keyValue(String key, String value) {
        return proto(kv -> {
            kv.writeString(1, key);
            kv.writeByteArray(2, proto(v -> v.writeString(1, value)));
        });
    }

    private interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] proto(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            w.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
