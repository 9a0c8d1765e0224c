package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.kafka.DurableProducer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces records as schema-v3 NDJSON to {@code sink.kafka.topic} with {@code acks=all} and an idempotent
 * producer: one Kafka message carries up to {@code message_max_records} consecutive records of one file (at most
 * {@code message_max_bytes}), each a JSON object ending in a newline, since the producer's cost is per message,
 * not per byte. The key is the host plus the file's identity, so one file's records stay in order on one
 * partition; headers carry the source path, identity, the first record's offset and the record count. A batch counts as delivered
 * only when the broker has acknowledged every record of it ({@link #send} lets several batches be in
 * flight meanwhile); if one fails, the records before it count as delivered and a retry of the same
 * batch resumes at the failed one (at-least-once: the rest may be written twice, with the same
 * {@code record_id}).
 */
public final class KafkaSink implements Sink {
    public static final String HEADER_PATH = "logpipe.source.path";
    public static final String HEADER_IDENTITY = "logpipe.source.identity";
    public static final String HEADER_OFFSET = "logpipe.source.offset";
    public static final String HEADER_RECORDS = "logpipe.records";

    private final ForwarderConfig.KafkaSink config;
    private final KafkaProducer<byte[], byte[]> producer;
    private final long ackWaitMs;
    /** Where a retry of a partly acknowledged batch resumes. Touched only by the publishing thread. */
    private final Map<BatchKey, Integer> resumeAt = new HashMap<>();

    private SourceFile keySource;
    private byte[] key;

    public KafkaSink(ForwarderConfig.KafkaSink config) {
        this.config = config;
        Map<String, Object> settings = producerSettings(config);
        // Wait for an acknowledgement a little longer than the producer itself may take to deliver or fail.
        this.ackWaitMs = DurableProducer.ackWaitMillis(settings);
        this.producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static Map<String, Object> producerSettings(ForwarderConfig.KafkaSink c) {
        // A message is checked against max.request.size before compression; leave room for a full one.
        Map<String, Object> defaults =
                Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Math.max(1024 * 1024, 2 * c.messageMaxBytes()));
        // send() may block for metadata while the broker is unreachable: at most 10 s, never longer than a delivery.
        Map<String, Object> p = DurableProducer.settings(
                c.properties(),
                defaults,
                new DurableProducer.Tuning(
                        c.bootstrapServers(),
                        c.compression(),
                        c.deliveryTimeout(),
                        c.linger(),
                        Duration.ofSeconds(10)));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, (int) c.batchBytes());
        if (c.clientId() != null) {
            p.put(ProducerConfig.CLIENT_ID_CONFIG, c.clientId());
        }
        return p;
    }

    @Override
    public void publish(Batch batch) throws IOException {
        send(batch).await();
    }

    /**
     * Hands every record not yet acknowledged to the producer and returns; the delivery waits for the
     * broker. Several batches can be in flight, so the producer never drains between them.
     */
    @Override
    public Delivery send(Batch batch) throws IOException {
        BatchKey id = new BatchKey(batch, batch.generation());
        int from = resumeAt.getOrDefault(id, 0);
        SourceFile src = batch.source();
        if (src != keySource) {
            keySource = src;
            key = (src.host() + ":" + src.identity()).getBytes(StandardCharsets.UTF_8);
        }
        byte[] path = src.path().getBytes(StandardCharsets.UTF_8);
        byte[] identity = src.identity().getBytes(StandardCharsets.UTF_8);
        byte[] wire = batch.wire().array();
        // messageStart[m] is the first record of message m; messageStart[sentCount] one past the last sent record.
        int[] messageStart = new int[batch.size() - from + 1];
        @SuppressWarnings("unchecked")
        Future<RecordMetadata>[] sent = new Future[batch.size() - from];
        int sentCount = 0;
        int i = from;
        KafkaException sendFailure = null;
        try {
            while (i < batch.size()) {
                int end = messageEnd(batch, i);
                RecordHeaders headers = new RecordHeaders(new Header[] {
                    new RecordHeader(HEADER_PATH, path),
                    new RecordHeader(HEADER_IDENTITY, identity),
                    new RecordHeader(HEADER_OFFSET, ascii(batch.startOffset(i))),
                    new RecordHeader(HEADER_RECORDS, ascii(end - i))
                });
                byte[] value = Arrays.copyOfRange(wire, batch.wireStart(i), batch.wireEnd(end - 1) + 1);
                Future<RecordMetadata> f =
                        producer.send(new ProducerRecord<>(config.topic(), null, null, key, value, headers));
                messageStart[sentCount] = i;
                sent[sentCount++] = f;
                i = end;
                if (failedAtOnce(f)) {
                    // Metadata timeout, record too large: stop here rather than block per message.
                    break;
                }
            }
        } catch (KafkaException e) {
            sendFailure = e; // send() itself failed (buffer full, closed): nothing from i on went out
        }
        messageStart[sentCount] = i;
        int messages = sentCount;
        KafkaException failure = sendFailure;
        return () -> {
            int acknowledged = from;
            try {
                acknowledged = awaitAcknowledged(sent, messageStart, messages);
                if (failure != null) {
                    throw new IOException(
                            "Kafka producer cannot send to " + config.topic() + " at " + config.bootstrapServers()
                                    + ": " + failure.getMessage(),
                            failure);
                }
                if (acknowledged < batch.size()) {
                    throw new IOException("Kafka producer stopped accepting records for " + config.topic() + " after "
                            + acknowledged + " of " + batch.size());
                }
                resumeAt.remove(id);
            } catch (PartialAck e) {
                resumeAt.put(id, e.acknowledged);
                throw e.cause;
            } catch (IOException e) {
                resumeAt.put(id, acknowledged);
                throw e;
            }
        };
    }

    /**
     * Whether a send failed before reaching the broker. A future can also be done because the producer's network
     * thread sent and the broker acknowledged the message before this thread looked: that is a success.
     */
    private static boolean failedAtOnce(Future<RecordMetadata> f) {
        if (!f.isDone()) {
            return false;
        }
        try {
            f.get();
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** One past the last record of the message that starts at record {@code first}: bounded by count and bytes. */
    private int messageEnd(Batch batch, int first) {
        int last = Math.min(batch.size(), first + config.messageMaxRecords());
        int limit = batch.wireStart(first) + config.messageMaxBytes();
        int end = first + 1; // a record larger than the limit travels alone
        while (end < last && batch.wireEnd(end) + 1 <= limit) {
            end++;
        }
        return end;
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    /** Identifies the content of a batch object (objects are reused). */
    private record BatchKey(Batch batch, long generation) {
        @Override
        public boolean equals(Object o) {
            return o instanceof BatchKey k && k.batch == batch && k.generation == generation;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(batch) * 31 + Long.hashCode(generation);
        }
    }

    /** A failure after {@code acknowledged} records of the batch were confirmed. */
    private static final class PartialAck extends Exception {
        private static final long serialVersionUID = 1L;
        final int acknowledged;
        final IOException cause;

        PartialAck(int acknowledged, IOException cause) {
            super(cause.getMessage(), cause, false, false);
            this.acknowledged = acknowledged;
            this.cause = cause;
        }
    }

    /**
     * Waits for the {@code messages} sent messages in order; returns how many leading records of the batch are
     * confirmed ({@code messageStart[m]} is message m's first record).
     */
    private int awaitAcknowledged(Future<RecordMetadata>[] sent, int[] messageStart, int messages) throws PartialAck {
        long waitMs = ackWaitMs;
        for (int m = 0; m < messages; m++) {
            try {
                sent[m].get(waitMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                throw new PartialAck(
                        messageStart[m],
                        new IOException(
                                "Kafka did not acknowledge a message for " + config.topic() + ": " + cause, cause));
            } catch (TimeoutException e) {
                throw new PartialAck(
                        messageStart[m],
                        new IOException(
                                "Kafka acknowledgement for " + config.topic() + " took longer than " + waitMs + " ms",
                                e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PartialAck(messageStart[m], new IOException("interrupted while waiting for Kafka", e));
            }
        }
        return messageStart[messages];
    }

    @Override
    public String describe() {
        return "kafka " + config.topic() + " at " + config.bootstrapServers();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
