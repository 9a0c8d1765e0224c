package dev.logpipe.index.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.lucene.IndexSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.junit.jupiter.api.Test;

class LeafChecksTest {
    @Test
    void theFullTextFieldsAreThoseTheLuceneSchemaAnalysesWithTheLogAnalyzer() throws IOException {
        List<String> fields = new ArrayList<>(Fields.KEYWORDS);
        fields.addAll(List.of(
                Fields.MESSAGE,
                Fields.EVENT_TIME,
                Fields.OBSERVED_TIME,
                Fields.SOURCE,
                Fields.DL_REASON,
                Fields.DL_DETAIL,
                Fields.DL_RAW,
                Fields.keyword("message"),
                "*"));
        Analyzer schema = IndexSchema.queryAnalyzer();
        for (String f : fields) {
            boolean analysed;
            try (TokenStream ts = schema.tokenStream(f, "Read timed-out")) {
                ts.reset();
                int n = 0;
                while (ts.incrementToken()) {
                    n++;
                }
                ts.end();
                analysed = n > 1;
            }
            assertThat(LeafChecks.fullText(f)).as(f).isEqualTo(analysed);
            assertThat(LeafChecks.tokens(f, "Read timed-out")).as(f).isEqualTo(analysed ? 2 : 1);
        }
        assertThat(LeafChecks.fullText(null)).as("the default field").isTrue();
    }
}
