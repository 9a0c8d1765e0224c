package dev.logpipe.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The main sources' {@code dev.logpipe} imports, read from the text (no compiled classes: testkit sits below every
 * module), as a graph of top-level types: each file is one type, named by its package and file name. A reference
 * written out in full without an import, or a same-package reference, is not seen.
 */
final class SourceGraph {
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.logpipe\\.[\\w.]+)\\s*;", Pattern.MULTILINE);

    /** A top-level type: its module directory, its package, and the file that declares it. */
    record Type(String module, String pkg, String name, Path file) {
        String qualified() {
            return pkg + "." + name;
        }

        boolean internal() {
            return pkg.contains(".internal");
        }
    }

    private final Map<String, Type> types;
    private final Map<String, Set<String>> imports;

    private SourceGraph(Map<String, Type> types, Map<String, Set<String>> imports) {
        this.types = types;
        this.imports = imports;
    }

    /** Reads {@code src/main/java} of every module directory under {@code root}. */
    static SourceGraph read(Path root) throws IOException {
        Map<String, Type> types = new TreeMap<>();
        Map<String, List<String>> raw = new HashMap<>();
        List<Path> modules;
        try (Stream<Path> dirs = Files.list(root)) {
            modules = dirs.filter(d -> Files.isDirectory(d.resolve("src/main/java")))
                    .sorted()
                    .toList();
        }
        for (Path module : modules) {
            List<Path> files;
            try (Stream<Path> all = Files.walk(module.resolve("src/main/java"))) {
                files = all.filter(p -> p.toString().endsWith(".java")
                                && !p.getFileName().toString().equals("package-info.java"))
                        .sorted()
                        .toList();
            }
            for (Path file : files) {
                String text = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(text);
                if (!pkg.find()) {
                    continue;
                }
                String name = file.getFileName().toString().replaceFirst("\\.java$", "");
                Type type = new Type(module.getFileName().toString(), pkg.group(1), name, root.relativize(file));
                types.put(type.qualified(), type);
                List<String> names = new ArrayList<>();
                Matcher m = IMPORT.matcher(text);
                while (m.find()) {
                    names.add(m.group(1));
                }
                raw.put(type.qualified(), names);
            }
        }
        Map<String, Set<String>> imports = new TreeMap<>();
        raw.forEach((from, names) -> {
            Set<String> to = new TreeSet<>();
            for (String imported : names) {
                String top = topLevel(imported, types);
                if (top != null && !top.equals(from)) {
                    to.add(top);
                }
            }
            imports.put(from, to);
        });
        return new SourceGraph(types, imports);
    }

    /** The declared type an import names: itself, or the type a nested type or a static member sits in. */
    private static String topLevel(String imported, Map<String, Type> types) {
        String name = imported;
        while (name.contains(".")) {
            if (types.containsKey(name)) {
                return name;
            }
            name = name.substring(0, name.lastIndexOf('.'));
        }
        return null;
    }

    Iterable<Type> types() {
        return types.values();
    }

    /** The types {@code type} imports. */
    List<Type> imports(Type type) {
        return imports.get(type.qualified()).stream().map(types::get).toList();
    }

    /** Package → the packages its types import (other than itself). */
    Map<String, Set<String>> packageGraph() {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (Type type : types.values()) {
            Set<String> to = graph.computeIfAbsent(type.pkg(), p -> new TreeSet<>());
            for (Type imported : imports(type)) {
                if (!imported.pkg().equals(type.pkg())) {
                    to.add(imported.pkg());
                }
            }
        }
        return graph;
    }

    /** Type → the types it imports, by qualified name. */
    Map<String, Set<String>> typeGraph() {
        return imports;
    }

    /** The strongly connected components of more than one node: the sets of nodes that import each other in a ring. */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        return new Tarjan(graph).run();
    }

    /** Tarjan's algorithm, iterative, over a graph whose every node is a key. */
    private static final class Tarjan {
        private final Map<String, Set<String>> graph;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new TreeSet<>();
        private final List<Set<String>> found = new ArrayList<>();

        Tarjan(Map<String, Set<String>> graph) {
            this.graph = graph;
        }

        List<Set<String>> run() {
            for (String node : graph.keySet()) {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            }
            return found;
        }

        private void visit(String start) {
            Function<String, List<String>> next = n -> graph.getOrDefault(n, Set.of()).stream()
                    .filter(graph::containsKey)
                    .toList();
            Deque<Map.Entry<String, Integer>> work = new ArrayDeque<>();
            open(start);
            work.push(Map.entry(start, 0));
            while (!work.isEmpty()) {
                Map.Entry<String, Integer> top = work.pop();
                String node = top.getKey();
                List<String> out = next.apply(node);
                int i = top.getValue();
                if (i < out.size()) {
                    work.push(Map.entry(node, i + 1));
                    String to = out.get(i);
                    if (!index.containsKey(to)) {
                        open(to);
                        work.push(Map.entry(to, 0));
                    } else if (onStack.contains(to)) {
                        low.put(node, Math.min(low.get(node), index.get(to)));
                    }
                    continue;
                }
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node))) {
                    Set<String> component = new TreeSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    } while (!member.equals(node));
                    if (component.size() > 1) {
                        found.add(component);
                    }
                }
            }
        }

        private void open(String node) {
            index.put(node, index.size());
            low.put(node, index.get(node));
            stack.push(node);
            onStack.add(node);
        }
    }
}
