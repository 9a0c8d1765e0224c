package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The boundary between a module's public types and its internals (docs/architecture.md, "Modules"): no module
 * reaches into another module's {@code dev.logpipe.<module>.internal} packages (the benchmarks may), and every public
 * top-level type outside {@code internal} is named in its module's README, so a module's README is its API. Inside a
 * module, imports go one way: no two files import each other (directly or round a ring), no new package cycle, and no
 * internal type imports a public type that itself imports the module's internals (an upward import).
 */
class ModuleBoundariesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern INTERNAL_USE = Pattern.compile("\\bdev\\.logpipe\\.(\\w+)\\.internal\\b");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*(?:class|interface|record|enum|@interface)"
                    + "\\s+(\\w+)",
            Pattern.MULTILINE);
    /**
     * Modules other modules may depend on. {@code server} is the top (nothing may depend on it) and {@code bench} is not
     * shipped, so neither has public types to name.
     */
    private static final List<String> SORTED = List.of(
            "record",
            "config",
            "role",
            "auth",
            "kafka-rules",
            "broker",
            "testkit",
            "opensearch-node",
            "forwarder",
            "collector",
            "index",
            "index-opensearch",
            "archive",
            "indexer",
            "ui",
            "query");
    /**
     * Package cycles that were there when the rule came (issue 30 item 4), each a group of packages (relative to
     * {@code dev.logpipe.}) that may import each other; a cycle is allowed only inside one group. Remove a group when
     * its cycle is broken. Any cycle through another package, or one that joins two groups, fails.
     */
    private static final List<Set<String>> KNOWN_PACKAGE_CYCLES = List.of(
            // the public StateException is thrown by internal.spool and internal.watermark, which Forwarder wires
            Set.of("forwarder", "forwarder.internal.spool", "forwarder.internal.tail", "forwarder.internal.watermark"),
            // the public seam IndexerProgress is read by internal.api, which QueryService wires; the Loki endpoints
            // and the alert rules run on internal.api's calls and are wired by QueryService too
            Set.of("query", "query.internal.api", "query.internal.tail", "query.internal.loki", "query.internal.rules"),
            // CollectorConfigLoader checks limits with internal.ingest.IngestRun; ingest ↔ metrics ↔ admission
            Set.of(
                    "collector.auth",
                    "collector.config",
                    "collector.internal.admission",
                    "collector.internal.ingest",
                    "collector.internal.metrics",
                    "collector.internal.redact"),
            // CompatRoutes names each protocol, each protocol uses compat's shared body readers
            Set.of(
                    "collector.internal.compat",
                    "collector.internal.compat.bulk",
                    "collector.internal.compat.loki",
                    "collector.internal.compat.otlp"));
    /**
     * Public types internal types may import although they import internals (issue 30 item 4). None left:
     * ForwarderConfig's Format and TimeLayout have moved to forwarder.config.
     */
    private static final Set<String> KNOWN_UPWARD_TARGETS = Set.of();

    /** Module directory → the base package of its main sources (the shortest package declared there). */
    private static Map<String, String> basePackages() throws IOException {
        Map<String, String> bases = new TreeMap<>();
        for (Path module : modules()) {
            for (Path source : sources(module.resolve("src/main/java"))) {
                Matcher m = PACKAGE.matcher(Files.readString(source));
                if (m.find()) {
                    bases.merge(
                            module.getFileName().toString(), m.group(1), (a, b) -> a.length() <= b.length() ? a : b);
                }
            }
        }
        return bases;
    }

    private static List<Path> modules() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("src")))
                    .sorted()
                    .toList();
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

    @Test
    void noModuleUsesAnotherModulesInternalPackages() throws IOException {
        Map<String, String> bases = basePackages();
        List<String> violations = new ArrayList<>();
        for (Path module : modules()) {
            String name = module.getFileName().toString();
            if (name.startsWith("bench")) {
                continue; // benchmarks (bench) measure hot loops where they are
            }
            String own = bases.get(name);
            for (String scope : List.of("src/main/java", "src/test/java")) {
                for (Path source : sources(module.resolve(scope))) {
                    Matcher m = INTERNAL_USE.matcher(Files.readString(source));
                    while (m.find()) {
                        if (!("dev.logpipe." + m.group(1)).equals(own)) {
                            violations.add(ROOT.relativize(source) + " uses " + m.group());
                        }
                    }
                }
            }
        }
        assertThat(violations).as("another module's internal package in use").isEmpty();
    }

    @Test
    void everyPublicTypeOutsideInternalIsNamedInItsModulesReadme() throws IOException {
        List<String> unnamed = new ArrayList<>();
        for (String name : SORTED) {
            Path module = ROOT.resolve(name);
            String readme = Files.readString(module.resolve("README.md"));
            for (Path source : sources(module.resolve("src/main/java"))) {
                String text = Files.readString(source);
                Matcher pkg = PACKAGE.matcher(text);
                Matcher type = PUBLIC_TYPE.matcher(text);
                if (!pkg.find() || pkg.group(1).contains(".internal") || !type.find()) {
                    continue;
                }
                String simple = type.group(1);
                if (!Pattern.compile("`[^`\\n]*\\b" + simple + "\\b[^`\\n]*`")
                        .matcher(readme)
                        .find()) {
                    unnamed.add(name + ": " + pkg.group(1) + "." + simple);
                }
            }
        }
        assertThat(unnamed)
                .as("public types not named in their module's README (name them, make them package-private, or move"
                        + " them under <module>.internal)")
                .isEmpty();
    }

    @Test
    void noTwoFilesImportEachOther() throws IOException {
        assertThat(SourceGraph.cycles(SourceGraph.read(ROOT).typeGraph()))
                .as("files that import each other, directly or round a ring (move a type or invert a dependency)")
                .isEmpty();
    }

    @Test
    void noPackageCycleBeyondTheKnownOnes() throws IOException {
        List<String> cycles = new ArrayList<>();
        for (Set<String> cycle : SourceGraph.cycles(SourceGraph.read(ROOT).packageGraph())) {
            Set<String> relative = new TreeSet<>();
            cycle.forEach(p -> relative.add(p.replaceFirst("^dev\\.logpipe\\.", "")));
            if (KNOWN_PACKAGE_CYCLES.stream().noneMatch(known -> known.containsAll(relative))) {
                cycles.add(relative.toString());
            }
        }
        assertThat(cycles)
                .as("packages that import each other round a ring (the types of one of them import another's)")
                .isEmpty();
    }

    @Test
    void noInternalTypeImportsAPublicTypeThatImportsInternals() throws IOException {
        SourceGraph graph = SourceGraph.read(ROOT);
        List<String> upward = new ArrayList<>();
        for (SourceGraph.Type type : graph.types()) {
            if (!type.internal()) {
                continue;
            }
            for (SourceGraph.Type target : graph.imports(type)) {
                if (target.module().equals(type.module())
                        && !target.internal()
                        && !KNOWN_UPWARD_TARGETS.contains(target.qualified())
                        && graph.imports(target).stream()
                                .anyMatch(t -> t.internal() && t.module().equals(type.module()))) {
                    upward.add(type.file() + " imports " + target.qualified());
                }
            }
        }
        assertThat(upward)
                .as("internal types importing a public type that sits above the internals (invert the dependency"
                        + " or move the type)")
                .isEmpty();
    }
}
