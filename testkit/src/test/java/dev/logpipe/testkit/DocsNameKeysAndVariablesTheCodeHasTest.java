package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The configuration keys the manual's reference tables name (tables headed {@code | key | ... default ...}, a row
 * starting with {@code | `a.b.c` |}) are read by some loader (each part of the key is a string literal in main code),
 * and every {@code LOGPIPE_*} environment variable the docs name is used by the code, a launcher script or a shipped
 * example (a name given as the value of an {@code *_env} key is the operator's choice and exempt): a renamed key or
 * variable cannot leave the manual promising it.
 */
class DocsNameKeysAndVariablesTheCodeHasTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern KEY_TABLE = Pattern.compile("^\\| *key *\\|.*\\bdefault\\b.*");
    private static final Pattern KEY_ROW = Pattern.compile("^\\| `([a-z_]+(?:\\[\\])?(?:\\.[a-z0-9_]+(?:\\[\\])?)*)` ");
    private static final Pattern CHOSEN_NAME = Pattern.compile("_env: *$");
    private static final Pattern LITERAL = Pattern.compile("\"([a-z0-9_]+)\"");
    private static final Pattern VARIABLE = Pattern.compile("\\bLOGPIPE_[A-Z_]+\\b");

    private static Stream<Path> files(Path dir) throws IOException {
        return Files.walk(dir)
                .filter(Files::isRegularFile)
                .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"));
    }

    private static List<Path> manual() throws IOException {
        try (Stream<Path> all = files(ROOT)) {
            return all.filter(p -> p.toString().endsWith(".md")
                            && (p.startsWith(ROOT.resolve("docs"))
                                    || p.getFileName().toString().equals("README.md")))
                    .toList();
        }
    }

    @Test
    void everyConfigKeyInTheManualsTablesIsReadByALoader() throws IOException {
        Set<String> literals = new HashSet<>();
        try (Stream<Path> sources = files(ROOT)) {
            for (Path p : sources.filter(
                            p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/"))
                    .toList()) {
                Matcher m = LITERAL.matcher(Files.readString(p));
                while (m.find()) {
                    literals.add(m.group(1));
                }
            }
        }
        TreeMap<String, String> unknown = new TreeMap<>();
        int keys = 0;
        for (Path doc : manual()) {
            boolean inKeyTable = false;
            for (String line : Files.readAllLines(doc)) {
                if (!line.startsWith("|")) {
                    inKeyTable = false;
                    continue;
                }
                if (KEY_TABLE.matcher(line).matches()) {
                    inKeyTable = true;
                    continue;
                }
                Matcher m = KEY_ROW.matcher(line);
                if (!inKeyTable || !m.find()) {
                    continue;
                }
                keys++;
                for (String part : m.group(1).replace("[]", "").split("\\.")) {
                    if (!literals.contains(part)) {
                        unknown.putIfAbsent(
                                m.group(1) + " (" + part + ")",
                                ROOT.relativize(doc).toString());
                    }
                }
            }
        }
        assertThat(keys).as("config keys found in the manual's tables").isGreaterThan(100);
        assertThat(unknown)
                .as("keys the manual's tables name that no loader reads (key -> first doc)")
                .isEmpty();
    }

    @Test
    void everyEnvironmentVariableTheDocsNameIsUsed() throws IOException {
        Set<String> used = new HashSet<>();
        try (Stream<Path> all = files(ROOT)) {
            for (Path p : all.filter(
                            p -> (p.toString().endsWith(".java") && p.toString().contains("/src/main/"))
                                    || p.startsWith(ROOT.resolve("bin"))
                                    || p.startsWith(ROOT.resolve("examples"))
                                    || p.startsWith(ROOT.resolve(".ci")))
                    .toList()) {
                Matcher m = VARIABLE.matcher(Files.readString(p));
                while (m.find()) {
                    used.add(m.group());
                }
            }
        }
        TreeMap<String, String> unknown = new TreeMap<>();
        for (Path doc : manual()) {
            String text = Files.readString(doc);
            Matcher m = VARIABLE.matcher(text);
            while (m.find()) {
                int lineStart = text.lastIndexOf('\n', m.start()) + 1;
                if (CHOSEN_NAME.matcher(text.substring(lineStart, m.start())).find()) {
                    continue;
                }
                if (!used.contains(m.group())) {
                    unknown.putIfAbsent(m.group(), ROOT.relativize(doc).toString());
                }
            }
        }
        assertThat(unknown)
                .as("environment variables the docs name that nothing uses (name -> first doc)")
                .isEmpty();
    }
}
