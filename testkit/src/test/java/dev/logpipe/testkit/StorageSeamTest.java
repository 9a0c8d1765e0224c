package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The storage seam (docs/architecture.md, "Storage engines"): nothing above {@code ShardStore} and {@code ShardSource}
 * needs a Lucene type. The query service, the indexer and the server name no Lucene package at all; in the index
 * module Lucene is used by the embedded engine ({@code store.lucene}), the log analyzer ({@code analysis}) and the
 * classic grammar's builder of the query language ({@code query}: Lucene's classic parser reads the text); and the
 * embedded engine's package is named only where a process is wired to its store.
 */
class StorageSeamTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LUCENE = Pattern.compile("\\borg\\.apache\\.lucene\\.");
    private static final Pattern LUCENE_STORE = Pattern.compile("\\bdev\\.logpipe\\.index\\.store\\.lucene\\b");

    /** Modules above the seam: none of their main sources names a Lucene package. */
    private static final List<String> ABOVE_THE_SEAM = List.of("query", "indexer", "server");

    /** Where the index module's main sources may use Lucene (paths under index/src/main/java/dev/logpipe/index). */
    private static final List<String> LUCENE_IN_INDEX = List.of("store/lucene/", "analysis/");

    /** The query language's classic-grammar builder: Lucene's classic parser and its term bytes. */
    private static final Set<String> GRAMMAR_BUILDER = Set.of(
            "query/AstBuilder.java", "query/LeafChecks.java", "query/RangeBounds.java", "query/RequiredLabels.java");

    /** The wiring: the only main sources outside the index module that name the embedded engine's package. */
    private static final Set<String> WIRING = Set.of(
            "indexer/src/main/java/dev/logpipe/indexer/Indexer.java",
            "indexer/src/main/java/dev/logpipe/indexer/config/IndexerConfig.java",
            "indexer/src/main/java/dev/logpipe/indexer/config/IndexerConfigLoader.java",
            "query/src/main/java/dev/logpipe/query/QueryProcess.java",
            "server/src/main/java/dev/logpipe/server/standalone/Standalone.java",
            "server/src/main/java/dev/logpipe/server/standalone/WarmUp.java");

    @Test
    void theQueryServiceTheIndexerAndTheServerNameNoLucenePackage() throws IOException {
        List<String> violations = new ArrayList<>();
        for (String module : ABOVE_THE_SEAM) {
            for (Path source : sources(ROOT.resolve(module).resolve("src/main/java"))) {
                if (LUCENE.matcher(Files.readString(source)).find()) {
                    violations.add(ROOT.relativize(source).toString());
                }
            }
        }
        assertThat(violations)
                .as("main sources above the storage seam that name Lucene")
                .isEmpty();
    }

    @Test
    void theIndexModuleUsesLuceneOnlyInTheEngineTheAnalyzerAndTheGrammarBuilder() throws IOException {
        Path base = ROOT.resolve("index/src/main/java/dev/logpipe/index");
        List<String> violations = new ArrayList<>();
        for (Path source : sources(base)) {
            String rel = base.relativize(source).toString().replace('\\', '/');
            boolean allowed =
                    GRAMMAR_BUILDER.contains(rel) || LUCENE_IN_INDEX.stream().anyMatch(rel::startsWith);
            if (!allowed && LUCENE.matcher(Files.readString(source)).find()) {
                violations.add(rel);
            }
        }
        assertThat(violations)
                .as("index sources outside store/lucene, analysis and the grammar builder naming Lucene")
                .isEmpty();
    }

    @Test
    void theEmbeddedEngineIsNamedOnlyByTheWiring() throws IOException {
        List<String> named = new ArrayList<>();
        for (String module : ABOVE_THE_SEAM) {
            for (Path source : sources(ROOT.resolve(module).resolve("src/main/java"))) {
                Matcher m = LUCENE_STORE.matcher(Files.readString(source));
                String rel = ROOT.relativize(source).toString().replace('\\', '/');
                if (m.find() && !WIRING.contains(rel)) {
                    named.add(rel);
                }
            }
        }
        Path index = ROOT.resolve("index/src/main/java/dev/logpipe/index");
        for (Path source : sources(index)) {
            String rel = index.relativize(source).toString().replace('\\', '/');
            if (!rel.startsWith("store/lucene/")
                    && LUCENE_STORE.matcher(Files.readString(source)).find()) {
                named.add("index/" + rel);
            }
        }
        assertThat(named)
                .as("main sources outside the wiring that name dev.logpipe.index.store.lucene")
                .isEmpty();
    }

    @Test
    void theWiringListNamesFilesThatExist() {
        for (String f : WIRING) {
            assertThat(ROOT.resolve(f)).as("a wiring file of the seam's list").isRegularFile();
        }
        for (String f : GRAMMAR_BUILDER) {
            assertThat(ROOT.resolve("index/src/main/java/dev/logpipe/index").resolve(f))
                    .as("a grammar-builder file of the seam's list")
                    .isRegularFile();
        }
    }

    private static List<Path> sources(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
