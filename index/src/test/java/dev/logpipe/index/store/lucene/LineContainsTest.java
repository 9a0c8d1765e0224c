package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.LineContains;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.query.QueryNode;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.record.LogRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/**
 * A line filter's literal, through {@link LineContains}, on real Lucene documents as the indexer builds them: the
 * query matches every record whose message contains the literal (whatever its case, joiners, runs cut at 255
 * characters, letters outside the BMP, or a record written before the whole-runs mark), and few others.
 */
class LineContainsTest {
    private static final Instant T = Instant.parse("2026-12-07T08:00:00Z");

    /** The messages of an index, and which of them were written without the mark (as before it existed). */
    record Corpus(List<String> messages, Set<Integer> unmarked) {}

    /** Ids (positions in {@code messages}) the candidates of {@code literal} match; all of them when it is empty. */
    static Set<Integer> candidates(Corpus corpus, String literal) throws IOException {
        Optional<QueryNode> node = LineContains.candidates(literal);
        Set<Integer> out = new HashSet<>();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
                IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(IndexSchema.indexAnalyzer()))) {
            for (int i = 0; i < corpus.messages().size(); i++) {
                w.addDocument(
                        document(i, corpus.messages().get(i), corpus.unmarked().contains(i)));
            }
            w.commit();
            try (DirectoryReader r = DirectoryReader.open(dir)) {
                if (node.isEmpty()) {
                    for (int i = 0; i < corpus.messages().size(); i++) {
                        out.add(i);
                    }
                    return out;
                }
                IndexSearcher s = new IndexSearcher(r);
                ParsedQuery q = new ParsedQuery("|= " + literal, node.get());
                for (ScoreDoc d : s.search(LuceneQueries.compile(Fields.MESSAGE, q), 100_000).scoreDocs) {
                    out.add(s.storedFields()
                            .document(d.doc)
                            .getField("i")
                            .numericValue()
                            .intValue());
                }
            }
        }
        return out;
    }

    private static Document document(int i, String message, boolean unmarked) {
        LogRecord r = LogRecord.builder(message)
                .recordId("r-" + i)
                .tenantId("acme")
                .eventTime(T)
                .observedTime(T)
                .build();
        byte[] source = ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
        Document d = RecordDocuments.record(r, T, T, source, 0, source.length);
        if (unmarked) {
            Document old = new Document();
            for (IndexableField f : d.getFields()) {
                if (!f.name().equals(Fields.RUNS_WHOLE)) {
                    old.add(f);
                }
            }
            d = old;
        }
        d.add(new StoredField("i", i));
        return d;
    }

    @Property(tries = 300)
    void everyRecordWhoseMessageContainsTheLiteralIsACandidate(
            @ForAll("corpora") Corpus corpus, @ForAll("picks") int[] pick) throws IOException {
        String from =
                corpus.messages().get(Math.floorMod(pick[0], corpus.messages().size()));
        int start = Math.floorMod(pick[1], from.length() + 1);
        int end = Math.min(from.length(), start + Math.floorMod(pick[2], 40));
        String literal = from.substring(start, end);
        if (pick[3] % 5 == 0) {
            literal = literal.toUpperCase(java.util.Locale.ROOT); // the filter is case sensitive, the index is not
        }
        Set<Integer> matched = candidates(corpus, literal);
        for (int i = 0; i < corpus.messages().size(); i++) {
            if (corpus.messages().get(i).contains(literal)) {
                assertThat(matched)
                        .as("message %s contains %s", corpus.messages().get(i), literal)
                        .contains(i);
            }
        }
    }

    @Provide
    Arbitrary<Corpus> corpora() {
        Arbitrary<String> pieces = Arbitraries.oneOf(
                Arbitraries.of(
                        "payment",
                        "Payment",
                        "CO-9931",
                        "user@example.com",
                        "api/v1/users",
                        "_x_",
                        "--",
                        "..",
                        "a.b",
                        "status=ok",
                        "took_ms=17",
                        "zqxneedle",
                        "İstanbul",
                        "e\u0301",
                        "\uD835\uDC00bc",
                        "é",
                        " ",
                        " ",
                        "=",
                        ":",
                        "\"",
                        ",",
                        "[",
                        "]"),
                Arbitraries.strings().withChars("aZ9_.-/@ =:é").ofMinLength(1).ofMaxLength(12),
                Arbitraries.strings().withChars("ab_-").ofMinLength(250).ofMaxLength(300)); // runs past a token
        Arbitrary<String> message = pieces.list().ofMinSize(1).ofMaxSize(12).map(p -> String.join("", p));
        return Combinators.combine(
                        message.list().ofMinSize(1).ofMaxSize(12),
                        Arbitraries.integers().between(0, 11).set().ofMaxSize(3))
                .as(Corpus::new);
    }

    @Provide
    Arbitrary<int[]> picks() {
        return Arbitraries.integers().between(0, 10_000).array(int[].class).ofSize(4);
    }

    @Test
    void aLiteralInsideATokenFindsOnlyTheRecordsWhoseTokensHoldIt() throws IOException {
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            messages.add("payment provider call finished with status ok order=CO-" + i + " took_ms=" + i);
        }
        messages.add("token=abcZQXNEEDLEdef rejected");
        messages.add("token=zqxneedle-7 rejected");
        Corpus corpus = new Corpus(messages, Set.of());

        assertThat(candidates(corpus, "ZQXNEEDLE")).as("infix").containsExactlyInAnyOrder(200, 201);
        assertThat(candidates(corpus, "=zqxneedle")).as("prefix").containsExactly(201);
        assertThat(candidates(corpus, "needle-7 "))
                .as("suffix, then a whole token")
                .containsExactly(201);
        assertThat(candidates(corpus, " status ok ")).as("whole tokens").hasSize(200);
        assertThat(candidates(corpus, "CO-17 ")).as("the end of a token").containsExactly(17);
        assertThat(candidates(corpus, " = ")).as("no token: every record").hasSize(202);
    }

    @Test
    void aPastedTextOfThousandsOfWordsAsksForItsLongestSixteenAndStillFindsItsLine() throws IOException {
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            words.append(" w").append(i);
        }
        String line = "x" + words + " y";
        Corpus corpus = new Corpus(List.of(line, "w1 w2 w3", "nothing alike"), Set.of());
        String literal = words + " ";
        QueryNode node = LineContains.candidates(literal).orElseThrow();
        assertThat(((QueryNode.Bool) node).clauses()).hasSize(LineContains.MAX_CLAUSES);
        assertThat(candidates(corpus, literal)).containsExactly(0);
    }

    @Test
    void aCharacterOutsideAsciiEndsARunWithoutBoundingIt() throws IOException {
        // whether U+0870 is a letter depends on the JVM's Unicode version (unassigned on 17, a letter from 14 on):
        // the literal's runs around it must hold whichever way the record was indexed
        Corpus corpus = new Corpus(List.of("id=ab\u0870cd end", "id=abécd end", "id=ab cd end"), Set.of());
        assertThat(candidates(corpus, " id=ab\u0870cd ")).contains(0);
        assertThat(candidates(corpus, "b\u00e9c")).contains(1);
        assertThat(candidates(corpus, "=ab\u0870")).contains(0).as("prefix ab").contains(1, 2);
    }

    @Test
    void theRecordsWithoutTheMarkAreFoundFromTheMarksPostingsNotByVisitingEveryRecord() {
        QueryNode node = LineContains.candidates("zqxneedle").orElseThrow();
        String compiled = LuceneQueries.compile(Fields.MESSAGE, new ParsedQuery("|= zqxneedle", node))
                .toString();
        assertThat(compiled)
                .contains("-" + Fields.RUNS_WHOLE + ":" + Fields.MESSAGE)
                .doesNotContain("*:*");
    }

    @Test
    void aLongRunOrAnUnmarkedRecordIsAlwaysACandidateForAPartOfAToken() throws IOException {
        String longRun = "x".repeat(250) + "zqxneedle" + "y".repeat(50); // cut at 255: the literal spans two pieces
        Corpus corpus = new Corpus(List.of("id=" + longRun, "plain words only", "legacy zqxneedle"), Set.of(2));

        assertThat(candidates(corpus, "zqxneedle")).containsExactlyInAnyOrder(0, 2);
        assertThat(candidates(corpus, " words "))
                .as("a whole token asks no mark")
                .containsExactly(1);
    }
}
