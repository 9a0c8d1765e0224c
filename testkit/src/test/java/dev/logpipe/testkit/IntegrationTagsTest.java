package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fast loop stays fast: every test class that starts a broker, a child JVM, a browser, an OpenSearch node or a
 * real process, itself or through a helper of its module's tests, is tagged {@link Integration} (or extends a class
 * that is), so {@code mvn test} leaves it to {@code mvn verify}.
 */
class IntegrationTagsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** What integration tests start; a helper of the tests that names one of these counts as one too. */
    private static final Pattern FIXTURE = Pattern.compile("\\b(EmbeddedBrokerExtension|BrokerProcess|ChildJvm"
            + "|OpenSearchExtension|OpenSearchNode|OpenSearchProcess|Browser|ProcessBuilder|EmbeddedBroker\\.start"
            + "|Standalone\\.start|StandaloneProcess)\\b");

    private static final Pattern EXTENDS = Pattern.compile("\\bclass\\s+\\w+(?:<[^>]*>)?\\s+extends\\s+(\\w+)");
    private static final Pattern TAGGED = Pattern.compile("^@Integration\\b", Pattern.MULTILINE);

    @Test
    void everyTestThatStartsARealProcessIsTaggedIntegration() throws IOException {
        List<String> untagged = new ArrayList<>();
        for (Path module : modules()) {
            Map<String, String> sources = testSources(module);
            List<String> heavy = new ArrayList<>();
            sources.forEach((name, text) -> {
                if (FIXTURE.matcher(text).find()) {
                    heavy.add(name);
                }
            });
            boolean grew = true;
            while (grew) {
                grew = false;
                for (Map.Entry<String, String> source : sources.entrySet()) {
                    if (!heavy.contains(source.getKey())
                            && !isTest(source.getKey())
                            && names(source.getValue(), heavy)) {
                        heavy.add(source.getKey());
                        grew = true;
                    }
                }
            }
            for (String name : sources.keySet()) {
                if (isTest(name) && names(sources.get(name), heavy) && !tagged(name, sources)) {
                    untagged.add(module.getFileName() + ": " + name);
                }
            }
        }
        assertThat(untagged)
                .as("tests that start real processes without @Integration (dev.logpipe.testkit.Integration)")
                .isEmpty();
    }

    private static boolean isTest(String name) {
        return name.endsWith("Test") || name.endsWith("Tests");
    }

    private static boolean names(String text, List<String> heavy) {
        if (FIXTURE.matcher(text).find()) {
            return true;
        }
        return heavy.stream()
                .anyMatch(h -> Pattern.compile("\\b" + h + "\\b").matcher(text).find());
    }

    private static boolean tagged(String name, Map<String, String> sources) {
        String text = sources.get(name);
        if (TAGGED.matcher(text).find()) {
            return true;
        }
        Matcher parent = EXTENDS.matcher(text);
        return parent.find() && sources.containsKey(parent.group(1)) && tagged(parent.group(1), sources);
    }

    private static List<Path> modules() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT)) {
            return dirs.filter(d -> Files.isDirectory(d.resolve("src/test/java")))
                    .sorted()
                    .toList();
        }
    }

    /** Simple name → source of the module's test files (this class's own file left out: it names every fixture). */
    private static Map<String, String> testSources(Path module) throws IOException {
        Map<String, String> sources = new HashMap<>();
        try (Stream<Path> all = Files.walk(module.resolve("src/test/java"))) {
            for (Path file : all.filter(p -> p.toString().endsWith(".java")).toList()) {
                String name = file.getFileName().toString().replaceFirst("\\.java$", "");
                if (!name.equals("package-info") && !name.equals(IntegrationTagsTest.class.getSimpleName())) {
                    sources.put(name, Files.readString(file));
                }
            }
        }
        return sources;
    }
}
