package dev.logpipe.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every metric the user manual and the module READMEs name ({@code logpipe_*}, {@code log_forwarder_*}) is one
 * that some module's main code registers: a renamed or removed metric cannot leave a doc promising it.
 */
class DocsNameMetricsTheCodeHasTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern IN_CODE = Pattern.compile("\"((?:logpipe|log_forwarder)[a-z0-9_.]*)\"");
    private static final Pattern IN_DOCS = Pattern.compile("\\b((?:logpipe|log_forwarder)_[a-z0-9_]*[a-z0-9])\\b");
    private static final String[] SUFFIXES = {
        "_total", "_seconds", "_bytes", "_count", "_sum", "_max", "_bucket", "_created"
    };

    /** Prometheus name without the suffixes the registry adds. */
    static String base(String name) {
        String n = name.replace('.', '_');
        for (boolean cut = true; cut; ) {
            cut = false;
            for (String s : SUFFIXES) {
                if (n.endsWith(s)) {
                    n = n.substring(0, n.length() - s.length());
                    cut = true;
                }
            }
        }
        return n;
    }

    private static Stream<Path> files(Path dir, String suffix) throws IOException {
        return Files.walk(dir)
                .filter(p -> p.toString().endsWith(suffix) && !p.toString().contains("/target/"));
    }

    @Test
    void everyMetricTheDocsNameIsRegisteredByTheCode() throws IOException {
        Set<String> registered = new HashSet<>();
        try (Stream<Path> sources = files(ROOT, ".java")) {
            for (Path p :
                    sources.filter(p -> p.toString().contains("/src/main/")).toList()) {
                Matcher m = IN_CODE.matcher(Files.readString(p));
                while (m.find()) {
                    registered.add(base(m.group(1)));
                }
            }
        }
        assertThat(registered).as("metric names found in the code").hasSizeGreaterThan(20);
        TreeMap<String, String> unknown = new TreeMap<>();
        try (Stream<Path> docs = files(ROOT, ".md")) {
            for (Path p : docs.filter(p -> p.startsWith(ROOT.resolve("docs"))
                            || p.getFileName().toString().equals("README.md"))
                    .toList()) {
                Matcher m = IN_DOCS.matcher(Files.readString(p));
                while (m.find()) {
                    String name = m.group(1);
                    if (!registered.contains(base(name)) && !registered.contains(name.replace('.', '_'))) {
                        unknown.putIfAbsent(name, ROOT.relativize(p).toString());
                    }
                }
            }
        }
        assertThat(unknown)
                .as("metrics named in the docs that no code registers (name -> first doc)")
                .isEmpty();
    }
}
