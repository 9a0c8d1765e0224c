package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneQueries;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.testkit.Integration;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every query of the index module's corpus (every query string of the tests and every example of docs/search.md)
 * finds the same records in an OpenSearch index as in a Lucene shard holding the same 1,000 records (real system log
 * lines from Loghub as messages, with typed structured fields): the query language means the same on both engines.
 */
@Integration
@ExtendWith(OpenSearchExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryParityTest {
    static final RecordCodec CODEC = new RecordCodec();
    static final Instant T = Instant.parse("2026-12-01T00:00:00Z");
    static final ShardId SHARD = ShardId.records("acme", LocalDate.parse("2026-12-01"));

    OpenSearchExtension.Node node;
    String index;
    IndexSearcher lucene;
    DirectoryReader reader;

    @BeforeAll
    void writeBothEngines(OpenSearchExtension.Node node, @TempDir Path data) throws Exception {
        this.node = node;
        List<IndexRecord> records = records();
        OpenSearchSettings local = OpenSearchSettings.local(URI.create(node.base()));
        OpenSearchStore os = OpenSearchStore.open(new OpenSearchSettings(
                local.hosts(),
                local.credential(),
                Optional.empty(),
                "parity",
                1,
                0,
                Duration.ofSeconds(30),
                local.bulkBytes(),
                local.requestTimeout(),
                OpenSearchSettings.DEFAULT_BULK_CONCURRENCY));
        os.delete(SHARD);
        assertThat(os.write(SHARD, records).rejections()).isEmpty();
        os.refresh();
        index = os.location(SHARD);
        ShardLayout layout = new ShardLayout(data);
        try (LuceneStore store = new LuceneStore(layout, StoreSettings.defaults(), InstantSource.system())) {
            assertThat(store.write(SHARD, records).rejections()).isEmpty();
            store.commit(Map.of());
        }
        reader = DirectoryReader.open(FSDirectory.open(layout.luceneDir(SHARD)));
        lucene = new IndexSearcher(reader);
    }

    static List<IndexRecord> records() throws Exception {
        List<String> lines;
        try (InputStream in = QueryParityTest.class.getResourceAsStream("/loghub-sample.log")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
        }
        String[] services = {
            "android", "bgl", "hpc", "hadoop", "healthapp", "mac", "openstack", "proxifier", "thunderbird", "windows"
        };
        Level[] levels = Level.values();
        List<IndexRecord> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Instant t = T.plusSeconds(i * 37L);
            LogRecord.Builder b = LogRecord.builder(lines.get(i).strip())
                    .recordId("r-" + i)
                    .tenantId("acme")
                    .eventTime(t)
                    .observedTime(t)
                    .service(services[i / 100])
                    .region(i % 2 == 0 ? "us-east-1" : "eu-west-1")
                    .instanceId("i-" + (i % 16))
                    .level(levels[i % levels.length])
                    .field("took_ms", (i * 7L) % 1000)
                    .field("ratio", (i % 10) / 4.0)
                    .field("user", "u" + (i % 13))
                    .field("log.offset", i * 100L);
            if (i % 3 == 0) {
                b.field("status", i % 2 == 0 ? "ok" : "failed");
            }
            byte[] line = CODEC.encode(b.build());
            out.add(new IndexRecord(CODEC.decode(line), t, t, line, 0, line.length));
        }
        return out;
    }

    TreeSet<String> luceneIds(ParsedQuery q) throws Exception {
        Query query = new BooleanQuery.Builder()
                .add(new TermQuery(new Term(Fields.TENANT_ID, "acme")), BooleanClause.Occur.FILTER)
                .add(LuceneQueries.compile(Fields.MESSAGE, q), BooleanClause.Occur.MUST)
                .build();
        TreeSet<String> ids = new TreeSet<>();
        for (ScoreDoc sd : lucene.search(query, 5_000).scoreDocs) {
            LeafReaderContext leaf =
                    reader.leaves().get(org.apache.lucene.index.ReaderUtil.subIndex(sd.doc, reader.leaves()));
            SortedDocValues dv = leaf.reader().getSortedDocValues(Fields.RECORD_ID);
            dv.advanceExact(sd.doc - leaf.docBase);
            ids.add(dv.lookupOrd(dv.ordValue()).utf8ToString());
        }
        return ids;
    }

    TreeSet<String> openSearchIds(ParsedQuery q) throws Exception {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        ObjectNode bool = body.putObject("query").putObject("bool");
        bool.putArray("filter").addObject().putObject("term").put(Fields.TENANT_ID, "acme");
        bool.putArray("must").add(OpenSearchQueries.translate(Fields.MESSAGE, q));
        body.put("size", 5_000).put("_source", false);
        OpenSearchExtension.Answer a = node.send("POST", "/" + index + "/_search", body);
        assertThat(a.status()).as("%s for %s", a.body(), body).isEqualTo(200);
        TreeSet<String> ids = new TreeSet<>();
        for (JsonNode h : a.body().path("hits").path("hits")) {
            ids.add(h.path("_id").asText());
        }
        return ids;
    }

    @Test
    void aLineFiltersCandidatesAreTheSameOnBothEnginesAndHoldEveryLineWithTheText() throws Exception {
        List<IndexRecord> records = records();
        List<String> differ = new ArrayList<>();
        int narrowed = 0;
        for (int i = 0; i < records.size(); i += 7) {
            String message = records.get(i).record().message();
            int start = (i * 31) % Math.max(1, message.length());
            String literal = message.substring(start, Math.min(message.length(), start + 3 + i % 17));
            if (i % 4 == 0) {
                literal = literal.toUpperCase(java.util.Locale.ROOT);
            }
            java.util.Optional<dev.logpipe.index.query.QueryNode> node =
                    dev.logpipe.index.query.LineContains.candidates(literal);
            if (node.isEmpty()) {
                continue;
            }
            ParsedQuery q = new ParsedQuery("|= " + literal, node.get());
            TreeSet<String> lucene = luceneIds(q);
            TreeSet<String> opensearch = openSearchIds(q);
            TreeSet<String> holding = new TreeSet<>();
            for (IndexRecord r : records) {
                if (r.record().message().contains(literal)) {
                    holding.add(r.record().recordId());
                }
            }
            assertThat(lucene).as("lucene candidates of %s", literal).containsAll(holding);
            if (!lucene.equals(opensearch)) {
                differ.add(literal + " -> lucene " + lucene.size() + ", opensearch " + opensearch.size());
            }
            if (lucene.size() < records.size() / 10) {
                narrowed++;
            }
        }
        assertThat(differ).isEmpty();
        assertThat(narrowed)
                .as("literals the index narrows to under a tenth of the records")
                .isGreaterThan(50);
    }

    @Test
    void everyQueryOfTheCorpusFindsTheSameRecordsOnBothEngines() throws Exception {
        JsonNode corpus;
        try (InputStream in = getClass().getResourceAsStream("/query-corpus.json")) {
            corpus = new ObjectMapper().readTree(in).path("queries");
        }
        assertThat(corpus.size()).isGreaterThan(1000);
        List<String> differ = new ArrayList<>();
        int compared = 0;
        int nonEmpty = 0;
        for (JsonNode text : corpus) {
            ParsedQuery q;
            try {
                q = ParsedQuery.parse(text.asText());
            } catch (InvalidQuery refused) {
                continue; // refused before any engine sees it
            }
            TreeSet<String> expected = luceneIds(q);
            TreeSet<String> actual = openSearchIds(q);
            compared++;
            if (!expected.isEmpty()) {
                nonEmpty++;
            }
            if (!expected.equals(actual)) {
                differ.add(text.asText() + " -> lucene " + expected.size() + ", opensearch " + actual.size());
            }
        }
        assertThat(compared).isGreaterThan(500);
        assertThat(nonEmpty).as("queries that find something").isGreaterThan(100);
        assertThat(differ)
                .as("queries whose records differ, of %d compared (%d finding something)", compared, nonEmpty)
                .isEmpty();
    }
}
