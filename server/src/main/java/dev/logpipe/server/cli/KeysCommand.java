package dev.logpipe.server.cli;

import dev.logpipe.server.keys.KeyFile;
import dev.logpipe.server.keys.KeyStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code logpipe keys create|list|revoke}: tenants and API keys of a standalone data directory. A running
 * standalone picks changes up within a second. Exit codes: 1 the key file is unusable, 2 bad arguments, 4 no such
 * key.
 */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Tenants and API keys of a standalone data directory (stored hashed in DATA/keys.json).",
        subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Revoke.class})
public final class KeysCommand implements Callable<Integer> {
    @Option(
            names = "--data",
            paramLabel = "DIR",
            defaultValue = "data",
            scope = CommandLine.ScopeType.INHERIT,
            description = "the standalone's data directory (default ./data)")
    Path data;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(System.err);
        return 2;
    }

    KeyStore store() {
        return new KeyStore(data.toAbsolutePath(), Clock.systemUTC());
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Makes a key for a tenant (and the tenant if new) and prints it once.")
    static final class Create implements Callable<Integer> {
        @CommandLine.ParentCommand
        KeysCommand parent;

        @Option(names = "--tenant", paramLabel = "NAME", description = "the tenant (lower-case letters, digits, _ -)")
        String tenant;

        @Option(names = "--admin", description = "make an admin key instead (guards the admin API)")
        boolean admin;

        @Override
        public Integer call() {
            if ((tenant == null) == !admin) {
                System.err.println("logpipe keys create: give exactly one of --tenant NAME or --admin");
                return 2;
            }
            try {
                KeyStore s = parent.store();
                KeyStore.Issued i = admin ? s.createAdminKey(null) : s.createKey(tenant, null);
                System.out.println(i.key());
                System.err.println("key id " + i.keyId() + (admin ? " (admin)" : " for tenant " + i.tenant())
                        + ": the key above is shown only now; " + s.file() + " stores its SHA-256");
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("logpipe keys create: " + e.getMessage());
                return 2;
            } catch (IOException e) {
                System.err.println("logpipe keys create: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Tenants and their key ids (never the keys).")
    static final class ListKeys implements Callable<Integer> {
        @CommandLine.ParentCommand
        KeysCommand parent;

        @Override
        public Integer call() {
            try {
                KeyFile f = parent.store().read();
                System.out.printf("%-24s %-18s %s%n", "TENANT", "KEY ID", "CREATED");
                for (KeyFile.StoredKey k : f.keys()) {
                    System.out.printf("%-24s %-18s %s%n", k.admin() ? "(admin)" : k.tenant(), k.id(), k.created());
                }
                for (KeyFile.Tenant t : f.tenants().values()) {
                    if (f.keys().stream().noneMatch(k -> t.id().equals(k.tenant()))) {
                        System.out.printf("%-24s %-18s %s%n", t.id(), "(no keys)", t.created());
                    }
                }
                return 0;
            } catch (IOException e) {
                System.err.println("logpipe keys list: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Removes a key by its id.")
    static final class Revoke implements Callable<Integer> {
        @CommandLine.ParentCommand
        KeysCommand parent;

        @Parameters(paramLabel = "KEY_ID", description = "as `logpipe keys list` shows it")
        String keyId;

        @Override
        public Integer call() {
            try {
                if (!parent.store().revoke(keyId)) {
                    System.err.println("logpipe keys revoke: no key " + keyId + " (see `logpipe keys list`)");
                    return 4;
                }
                System.err.println("revoked " + keyId);
                return 0;
            } catch (IOException e) {
                System.err.println("logpipe keys revoke: " + e.getMessage());
                return 1;
            }
        }
    }
}
