package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The boundary between a module's public types and its internals (docs/architecture.md, "Modules"): no module
 * reaches into another module's {@code dev.logpipe.<module>.internal} packages (the benchmarks may), and every public
 * top-level type outside {@code internal} is named in its module's README, so a module's README is its API.
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
}
