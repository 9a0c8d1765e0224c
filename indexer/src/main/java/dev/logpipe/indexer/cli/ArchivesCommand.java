package dev.logpipe.indexer.cli;

import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code logpipe archives list|archive|restore}: the archive tier's admin API (docs/archive.md#admin-api-and-cli) from a
 * shell. The admin key is read from an environment variable ({@code LOGPIPE_ADMIN_KEY} unless {@code --admin-key-env}
 * names another), never from the command line, where {@code ps} would show it. Prints the indexer's JSON answer on
 * standard output; exit code 0 when it was accepted, 1 when the indexer refused it (its error on standard error), 2
 * for a usage error or no key, 3 when the indexer cannot be reached.
 */
@Command(
        name = "logpipe archives",
        mixinStandardHelpOptions = true,
        description = "List archived days, archive a hot day now, restore an archived day into the hot tier.",
        subcommands = {ArchivesCommand.List.class, ArchivesCommand.Archive.class, ArchivesCommand.Restore.class})
public final class ArchivesCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--indexer",
            defaultValue = "http://127.0.0.1:9300",
            description = "the indexer's (or the standalone's) base URL (default ${DEFAULT-VALUE})")
    String indexer;

    @Option(
            names = "--admin-key-env",
            defaultValue = "LOGPIPE_ADMIN_KEY",
            description = "the environment variable holding the admin key (default ${DEFAULT-VALUE})")
    String adminKeyEnv;

    private final UnaryOperator<String> env;

    public ArchivesCommand() {
        this(System::getenv);
    }

    /** @param env the environment the admin key is read from (tests give their own) */
    public ArchivesCommand(UnaryOperator<String> env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    @Command(name = "list", description = "archived days, days kept hot, archives asked for, restores under way")
    static final class List implements Callable<Integer> {
        @CommandLine.ParentCommand
        ArchivesCommand parent;

        @Option(names = "--tenant", description = "only this tenant's")
        String tenant;

        @Option(names = "--limit", description = "archived days shown at most (the indexer's default 1,000)")
        Integer limit;

        @Override
        public Integer call() {
            StringBuilder query = new StringBuilder();
            if (tenant != null) {
                query.append("&tenant_id=").append(URLEncoder.encode(tenant, StandardCharsets.UTF_8));
            }
            if (limit != null) {
                query.append("&limit=").append(limit);
            }
            return parent.send(
                    "GET", "/api/v1/admin/archives" + query.toString().replaceFirst("^&", "?"), null);
        }
    }

    /** The tenant and UTC day an archive or restore names. */
    static final class Day {
        @Option(names = "--tenant", required = true)
        String tenant;

        @Option(names = "--day", required = true, description = "the UTC day, e.g. 2026-11-20")
        String day;
    }

    @Command(name = "archive", description = "archive a closed hot day now, whatever its archive_after")
    static final class Archive implements Callable<Integer> {
        @CommandLine.ParentCommand
        ArchivesCommand parent;

        @CommandLine.Mixin
        Day target;

        @Override
        public Integer call() {
            return parent.send("POST", "/api/v1/admin/archives", body(target, null));
        }
    }

    @Command(name = "restore", description = "restore an archived day into the hot tier for heavy investigation")
    static final class Restore implements Callable<Integer> {
        @CommandLine.ParentCommand
        ArchivesCommand parent;

        @CommandLine.Mixin
        Day target;

        @Option(
                names = "--keep-days",
                defaultValue = "7",
                description = "days it stays hot before it may be archived again (default ${DEFAULT-VALUE})")
        int keepDays;

        @Override
        public Integer call() {
            return parent.send("POST", "/api/v1/admin/archives/restore", body(target, keepDays));
        }
    }

    private static String body(Day target, Integer keepDays) {
        var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode()
                .put("tenant_id", target.tenant)
                .put("day", target.day);
        if (keepDays != null) {
            o.put("keep_hot_days", keepDays);
        }
        return o.toString();
    }

    int send(String method, String path, String body) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String key = env.apply(adminKeyEnv);
        if (key == null || key.isBlank()) {
            err.println("logpipe archives: set " + adminKeyEnv + " to an admin key (the key itself is never an "
                    + "argument)");
            return 2;
        }
        URI uri;
        try {
            uri = URI.create(indexer.replaceAll("/+$", "") + path);
        } catch (IllegalArgumentException e) {
            err.println("logpipe archives: --indexer " + indexer + " is not a URL: " + e.getMessage());
            return 2;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json");
        request.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> answer = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() / 100 == 2) {
                out.println(answer.body());
                out.flush();
                return 0;
            }
            err.println("logpipe archives: the indexer answered " + answer.statusCode() + ": " + answer.body());
            err.flush();
            return 1;
        } catch (java.io.IOException e) {
            err.println("logpipe archives: cannot reach " + uri + ": " + e);
            err.flush();
            return 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 3;
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ArchivesCommand()).execute(args));
    }
}
