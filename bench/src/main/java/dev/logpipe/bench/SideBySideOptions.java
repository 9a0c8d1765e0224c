package dev.logpipe.bench;

import dev.logpipe.opensearch.node.OpenSearchProcess;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The command line of {@link OpenSearchSideBySide}, validated. */
record SideBySideOptions(
        long records,
        int runs,
        int warmup,
        Path dir,
        boolean reuse,
        List<String> osJvmOpts,
        String osClassPath,
        int bulkDocs,
        int bulkClients,
        int forceMerge,
        boolean indexSort,
        boolean requestCache) {
    SideBySideOptions {
        if (records < 12 || runs < 1 || warmup < 0 || bulkDocs < 1 || bulkClients < 1 || forceMerge < 0) {
            throw new IllegalArgumentException("need --records >= 12, --runs >= 1, --warmup >= 0, --os-bulk-docs >= 1,"
                    + " --os-bulk-clients >= 1, --os-force-merge >= 0");
        }
        osJvmOpts = List.copyOf(osJvmOpts);
    }

    static SideBySideOptions parse(String[] args) {
        long records = 2_000_000;
        int runs = 200;
        int warmup = 100;
        Path dir = Path.of("/tmp/logpipe-os-bench");
        boolean reuse = false;
        String jvmOpts = "-Xms1g -Xmx2g";
        String classPath = OpenSearchProcess.DEFAULT_CLASS_PATH;
        int bulkDocs = 5000;
        int bulkClients = 2;
        int forceMerge = 0;
        boolean indexSort = false;
        boolean requestCache = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--reuse" -> reuse = true;
                case "--os-jvm-opts" -> jvmOpts = args[++i];
                case "--os-classpath" -> classPath = args[++i];
                case "--os-bulk-docs" -> bulkDocs = Integer.parseInt(args[++i]);
                case "--os-bulk-clients" -> bulkClients = Integer.parseInt(args[++i]);
                case "--os-force-merge" -> forceMerge = Integer.parseInt(args[++i]);
                case "--os-index-sort" -> indexSort = true;
                case "--os-request-cache" -> requestCache = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<String> opts = Arrays.stream(jvmOpts.trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList();
        return new SideBySideOptions(
                records,
                runs,
                warmup,
                dir,
                reuse,
                opts,
                classPath,
                bulkDocs,
                bulkClients,
                forceMerge,
                indexSort,
                requestCache);
    }
}
