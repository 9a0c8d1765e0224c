package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.FieldKind;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.read.ShardSearcher;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.index.testing.StoreReads;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.search.Query;

/**
 * Ranges on numeric fields match exactly the values on the right side of the bound as written, however far past the
 * range of a long or a double the bound is (issue 24 item 10: {@code fields.tc:>1e300} matched 42).
 */
class NumericRangeTest {
    static final Instant T = Instant.parse("2026-12-01T08:00:02.017Z");
    static final ShardId SHARD = ShardId.records("acme", LocalDate.parse("2026-12-01"));
    static final List<Long> LONGS = List.of(
            Long.MIN_VALUE,
            Long.MIN_VALUE + 1,
            -(1L << 53) - 1,
            -1L,
            0L,
            1L,
            42L,
            (1L << 53) + 1,
            Long.MAX_VALUE - 1,
            Long.MAX_VALUE);
    static final List<Double> DOUBLES = List.of(
            -Double.MAX_VALUE,
            -1e300,
            -1.5,
            -Double.MIN_VALUE,
            -0.0,
            0.0,
            Double.MIN_VALUE,
            0.5,
            42.5,
            9.3e18,
            1e300,
            Double.MAX_VALUE);
    static Path dir;
    static LuceneStore store;
    static ShardSearcher searcher;

    @BeforeContainer
    static void index() throws Exception {
        dir = Files.createTempDirectory("numeric-range");
        store = new LuceneStore(new ShardLayout(dir), StoreSettings.defaults(), InstantSource.fixed(T));
        List<IndexRecord> rs = new ArrayList<>();
        int i = 0;
        for (Object v : Stream.concat(LONGS.stream(), DOUBLES.stream()).toList()) {
            rs.add(record("r" + i++, v));
        }
        rs.add(record("tc", "tc", 42L));
        store.write(SHARD, rs);
        store.refresh();
        searcher = new LiveShards(store).open(SHARD).orElseThrow();
    }

    @AfterContainer
    static void close() throws IOException {
        searcher.close();
        store.close();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    static IndexRecord record(String id, Object value) throws Exception {
        return record(id, "n", value);
    }

    static IndexRecord record(String id, String field, Object value) throws Exception {
        RecordCodec codec = new RecordCodec();
        LogRecord.Builder b = LogRecord.builder("m")
                .recordId(id)
                .tenantId("acme")
                .eventTime(T)
                .observedTime(T)
                .level(Level.INFO)
                .field(field, value);
        byte[] line = codec.encode(b.build());
        return new IndexRecord(codec.decode(line), T, T, line, 0, line.length);
    }

    static long count(String q) throws IOException {
        return StoreReads.count(searcher, "acme", q);
    }

    @Example
    void boundsPastTheLargestLongMatchNothingAboveAndEverythingBelow() throws IOException {
        assertThat(count("fields.tc:42")).isEqualTo(1);
        assertThat(count("fields.tc:>1e300")).isZero();
        assertThat(count("fields.tc:>99999999999999999999")).isZero();
        assertThat(count("fields.tc:>=99999999999999999999")).isZero();
        assertThat(count("fields.tc:>9223372036854775807")).isZero();
        assertThat(count("fields.tc:<99999999999999999999")).isEqualTo(1);
        assertThat(count("fields.tc:<1e300")).isEqualTo(1);
        assertThat(count("fields.tc:[* TO 1e400]")).isEqualTo(1);
        assertThat(count("fields.tc:<-99999999999999999999")).isZero();
        assertThat(count("fields.tc:>-1e300")).isEqualTo(1);
        assertThat(count("fields.tc:>41.999999999999999999999")).isEqualTo(1);
        assertThat(count("fields.tc:>42.000000000000000000001")).isZero();
        assertThat(count("event_time:>9223372036854775807")).isZero();
        assertThat(count("event_time:<-9223372036854775808")).isZero();
    }

    /**
     * Review of issue 24, finding 1: rounding {@code 1e-300000000} to a whole number with {@code setScale} built
     * {@code 10^300000000} on the request thread, minutes of CPU and hundreds of MB before any deadline.
     */
    @Example
    void aBoundBelowOneIsRoundedToAWholeNumberWithoutItsPowerOfTen() throws Exception {
        BigDecimal tiny = new BigDecimal("1e-300000000");
        Query above = within(() -> NumericBounds.longRange("n", tiny, true, null, true));
        Query atOrBelowMinus = within(() -> NumericBounds.longRange("n", null, true, tiny.negate(), true));
        Query below = within(() -> NumericBounds.longRange("n", null, true, tiny, false));
        String f = RecordDocuments.numericField("n", FieldKind.LONG);
        assertThat(above).isEqualTo(LongPoint.newRangeQuery(f, 1, Long.MAX_VALUE));
        assertThat(atOrBelowMinus).isEqualTo(LongPoint.newRangeQuery(f, Long.MIN_VALUE, -1));
        assertThat(below).isEqualTo(LongPoint.newRangeQuery(f, Long.MIN_VALUE, 0));
        assertThat(within(() -> NumericBounds.longRange("n", new BigDecimal("0E-300000000"), false, null, true)))
                .isEqualTo(LongPoint.newRangeQuery(f, 1, Long.MAX_VALUE));
    }

    /** The parser refuses such a bound outright, naming it, instead of answering a query no field can need. */
    @Example
    void aBoundWithAnAbsurdExponentIsRefusedAtOnceNamingIt() throws Exception {
        for (String q : List.of(
                "fields.n:>1e-300000000",
                "fields.n:[1e-300000000 TO *]",
                "fields.n:<=-1e-300000000",
                "fields.n:{* TO 1e300000000}")) {
            Optional<InvalidQuery.Problem> p = within(() -> problem(q));
            assertThat(p)
                    .as(q)
                    .hasValueSatisfying(x -> assertThat(x.message())
                            .contains("fields.n")
                            .contains(q.contains("e-") ? "1e-300000000" : "1e300000000"));
        }
        assertThat(within(() -> count("fields.n:>1e-10000"))).isEqualTo(expected(">", new BigDecimal("1e-10000")));
        assertThat(within(() -> count("fields.n:<=-1e-9999"))).isEqualTo(expected("<=", new BigDecimal("-1e-9999")));
    }

    /** Why the query language refuses {@code q}, as the query service answers it; empty when it parses. */
    static Optional<InvalidQuery.Problem> problem(String q) {
        try {
            ParsedQuery.parse(q);
            return Optional.empty();
        } catch (InvalidQuery e) {
            return Optional.of(e.problem());
        }
    }

    /** {@code work}'s result, or a failure when it takes a second or more (the thread is left to the JVM's exit). */
    static <T> T within(Callable<T> work) throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "numeric-bound");
            t.setDaemon(true);
            return t;
        });
        try {
            return one.submit(work).get(1, TimeUnit.SECONDS);
        } finally {
            one.shutdownNow();
        }
    }

    @Property(tries = 400)
    void aRangeMatchesExactlyTheValuesOnItsSide(@ForAll("ops") String op, @ForAll("bounds") BigDecimal bound)
            throws IOException {
        String text = bound.abs().compareTo(BigDecimal.valueOf(1_000_000_000L).pow(3)) > 0
                ? bound.toString()
                : bound.toPlainString();
        assertThat(count("fields.n:" + op + text)).as("fields.n:%s%s", op, text).isEqualTo(expected(op, bound));
    }

    /** How many of the indexed values are on {@code op}'s side of {@code bound}, compared exactly. */
    static long expected(String op, BigDecimal bound) {
        long expected = 0;
        for (Object v : Stream.concat(LONGS.stream(), DOUBLES.stream()).toList()) {
            BigDecimal x = v instanceof Long l ? BigDecimal.valueOf(l) : new BigDecimal((Double) v);
            int c = x.compareTo(bound);
            boolean in = switch (op) {
                case ">" -> c > 0;
                case ">=" -> c >= 0;
                case "<" -> c < 0;
                default -> c <= 0;
            };
            expected += in ? 1 : 0;
        }
        return expected;
    }

    @Provide
    Arbitrary<String> ops() {
        return Arbitraries.of(">", ">=", "<", "<=");
    }

    @Provide
    Arbitrary<BigDecimal> bounds() {
        List<BigDecimal> near = new ArrayList<>();
        LONGS.forEach(l -> near.add(BigDecimal.valueOf(l)));
        DOUBLES.forEach(d -> near.add(new BigDecimal(d)));
        Arbitrary<BigDecimal> delta = Arbitraries.of(
                BigDecimal.ZERO,
                BigDecimal.ONE,
                BigDecimal.ONE.negate(),
                new BigDecimal("0.5"),
                new BigDecimal("-1e-30"),
                new BigDecimal("1e-400"));
        Arbitrary<BigDecimal> nearValues = Arbitraries.of(near).flatMap(b -> delta.map(b::add));
        Arbitrary<BigDecimal> powers = Arbitraries.integers()
                .between(0, 400)
                .flatMap(k ->
                        Arbitraries.of(1, -1).map(s -> BigDecimal.TEN.pow(k).multiply(BigDecimal.valueOf(s))));
        return Arbitraries.oneOf(
                nearValues,
                powers,
                Arbitraries.longs().map(BigDecimal::valueOf),
                Arbitraries.doubles().map(BigDecimal::new));
    }
}
