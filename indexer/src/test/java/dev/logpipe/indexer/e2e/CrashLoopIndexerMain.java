package dev.logpipe.indexer.e2e;

import dev.logpipe.indexer.Indexer;
import dev.logpipe.indexer.config.IndexerConfig;
import dev.logpipe.indexer.config.IndexerConfigLoader;
import dev.logpipe.role.RoleLifecycle;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The crash loop's child JVM: {@code logpipe indexer --config FILE} (the same lifecycle and exit codes as
 * {@code IndexerCommand}) over a store that pauses after each engine commit ({@link PausedAfterEngineCommit}).
 */
public final class CrashLoopIndexerMain {
    private CrashLoopIndexerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].equals("--config")) {
            throw new IllegalArgumentException("usage: --config FILE, was " + String.join(" ", args));
        }
        System.exit(new RoleLifecycle("logpipe indexer")
                .run(Path.of(args[1]), false, new IndexerConfigLoader()::load, (IndexerConfig c) -> {
                    return Indexer.start(c, Clock.systemUTC(), PausedAfterEngineCommit::new);
                }));
    }
}
