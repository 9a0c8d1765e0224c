package dev.logpipe.query.internal.rules;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.config.ConfigException;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.JsonErrorHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/v1/admin/rules} (docs/loki.md#managing-rules-over-the-admin-api), behind the admin key (checked by the
 * caller): {@code GET} lists every tenant's groups, from files and stored; {@code GET /{tenant}} one tenant's;
 * {@code GET /{tenant}/{group}} one group with its text; {@code PUT /{tenant}/{group}} stores a group in the ruler
 * format (YAML or JSON), validated with key-path errors, evaluated at once; {@code DELETE /{tenant}/{group}} removes
 * one. Bounded: {@link #MAX_BODY_BYTES} a group, {@link #MAX_RULES} rules a group, {@link RuleSets#MAX_GROUPS_PER_TENANT}
 * stored groups a tenant and {@link RuleSets#MAX_GROUPS} in all. Thread-safe.
 */
public final class RulesAdmin {
    private static final Logger log = LoggerFactory.getLogger(RulesAdmin.class);
    public static final int MAX_BODY_BYTES = 64 * 1024;
    public static final int MAX_RULES = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RuleSets rules;
    private final Predicate<String> tenantKnown;

    /** @param tenantKnown whether a tenant is configured (rules of unknown tenants are refused) */
    public RulesAdmin(RuleSets rules, Predicate<String> tenantKnown) {
        this.rules = rules;
        this.tenantKnown = tenantKnown;
    }

    /**
     * Answers one admin request; {@code rest} is the path after {@code /api/v1/admin/rules} (decoded), {@code who}
     * the admin key's id, for the log.
     */
    public Answer handle(String method, String rest, Callable<InputStream> body, String who) {
        String[] parts = rest.isEmpty() ? new String[0] : rest.substring(1).split("/", -1);
        if (!rest.isEmpty() && !rest.startsWith("/") || parts.length > 2) {
            return error(404, "not found: /api/v1/admin/rules[/{tenant}[/{group}]]");
        }
        try {
            if (parts.length < 2) {
                if (!method.equals("GET")) {
                    return error(405, "only GET here; PUT and DELETE take /api/v1/admin/rules/{tenant}/{group}");
                }
                return Answer.json(
                        200, list(parts.length == 0 ? null : parts[0]).toString());
            }
            String tenant = parts[0];
            String group = parts[1];
            return switch (method) {
                case "GET" -> one(tenant, group);
                case "PUT" -> put(tenant, group, body, who);
                case "DELETE" -> delete(tenant, group, who);
                default -> error(405, "rule groups take GET, PUT and DELETE");
            };
        } catch (IOException e) {
            log.warn("admin rules: {}", e.toString());
            return error(503, "the rule store cannot be read or written now: " + e.getMessage());
        } catch (Exception e) {
            log.warn("admin rules failed", e);
            return error(500, "internal error");
        }
    }

    private ObjectNode list(String onlyTenant) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode groups = root.putArray("groups");
        for (RuleGroups f : rules.fromFiles()) {
            if (onlyTenant == null || f.tenant().equals(onlyTenant)) {
                for (RuleGroups.Group g : f.groups()) {
                    summary(groups.addObject(), f.tenant(), g).put("source", "file");
                }
            }
        }
        var errors = rules.storedErrors();
        for (StoredGroup s : rules.stored()) {
            if (onlyTenant == null || s.tenant().equals(onlyTenant)) {
                ObjectNode o = groups.addObject();
                try {
                    summary(o, s.tenant(), RuleGroups.parseGroup(s.yaml(), "stored group"));
                } catch (ConfigException e) {
                    o.put("tenant", s.tenant()).put("name", s.name());
                }
                o.put("source", "api");
                String err = errors.get(s.tenant() + "/" + s.name());
                if (err != null) {
                    o.put("error", err);
                }
            }
        }
        return root;
    }

    private static ObjectNode summary(ObjectNode o, String tenant, RuleGroups.Group g) {
        o.put("tenant", tenant)
                .put("name", g.name())
                .put("interval", g.interval().toString());
        ArrayNode rs = o.putArray("rules");
        for (RuleGroups.Rule r : g.rules()) {
            rs.addObject().put(r.recording() ? "record" : "alert", r.name()).put("expr", r.expr());
        }
        return o;
    }

    private Answer one(String tenant, String group) throws IOException {
        for (StoredGroup s : rules.stored()) {
            if (s.tenant().equals(tenant) && s.name().equals(group)) {
                ObjectNode o = JSON.createObjectNode();
                o.put("tenant", tenant).put("name", group).put("source", "api").put("yaml", s.yaml());
                return Answer.json(200, o.toString());
            }
        }
        for (RuleGroups f : rules.fromFiles()) {
            for (RuleGroups.Group g : f.groups()) {
                if (f.tenant().equals(tenant) && g.name().equals(group)) {
                    return Answer.json(
                            200,
                            summary(JSON.createObjectNode(), tenant, g)
                                    .put("source", "file")
                                    .toString());
                }
            }
        }
        return error(404, "tenant " + tenant + " has no rule group " + group);
    }

    private Answer put(String tenant, String group, Callable<InputStream> body, String who) throws Exception {
        if (!tenantKnown.test(tenant)) {
            return error(404, "no tenant " + tenant + " is configured");
        }
        String problem = TenantDirectory.problem(group);
        if (problem != null || group.length() > 100) {
            return error(
                    400,
                    "group name: must be 1 to 100 characters without control characters"
                            + (problem == null ? "" : " (" + problem + ")"));
        }
        byte[] bytes;
        try (InputStream in = body.call()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            return error(413, "a rule group may hold at most " + MAX_BODY_BYTES + " bytes");
        }
        String yaml = new String(bytes, StandardCharsets.UTF_8);
        RuleGroups.Group g;
        try {
            g = RuleGroups.parseGroup(yaml, "body");
        } catch (ConfigException e) {
            return error(400, e.getMessage());
        }
        if (!g.name().equals(group)) {
            return error(400, "body: name: must be the group of the path, \"" + group + "\", was \"" + g.name() + "\"");
        }
        if (g.rules().isEmpty() || g.rules().size() > MAX_RULES) {
            return error(
                    400,
                    "body: rules: must hold 1 to " + MAX_RULES + " rules, held "
                            + g.rules().size());
        }
        boolean alerting = g.rules().stream().anyMatch(r -> !r.recording());
        var a = rules.alerting();
        if (alerting && a.alertmanager().isEmpty() && a.webhook().isEmpty()) {
            return error(
                    400,
                    "body: alerting rules need alerting.alertmanager_url or alerting.webhook_url in the "
                            + "query service's config; recording rules do not");
        }
        for (RuleGroups f : rules.fromFiles()) {
            if (f.tenant().equals(tenant)
                    && f.groups().stream().anyMatch(x -> x.name().equals(group))) {
                return error(
                        409,
                        "tenant " + tenant + "'s group " + group + " comes from a rule file in the config; "
                                + "change it there, or name this group otherwise");
            }
        }
        RuleSets.Stored done = rules.put(new StoredGroup(tenant, group, yaml));
        if (done == RuleSets.Stored.TENANT_FULL) {
            return error(
                    409,
                    "tenant " + tenant + " has " + RuleSets.MAX_GROUPS_PER_TENANT
                            + " stored rule groups, as many as it may");
        }
        if (done == RuleSets.Stored.ALL_FULL) {
            return error(409, "the rule store holds " + RuleSets.MAX_GROUPS + " groups, as many as it may");
        }
        boolean replacing = done == RuleSets.Stored.REPLACED;
        log.info(
                "rule group {} of tenant {} {} by {} ({} rules)",
                group,
                tenant,
                replacing ? "replaced" : "stored",
                who,
                g.rules().size());
        ObjectNode o = summary(JSON.createObjectNode(), tenant, g).put("source", "api");
        return Answer.json(replacing ? 200 : 201, o.toString());
    }

    private Answer delete(String tenant, String group, String who) throws IOException {
        if (TenantDirectory.problem(tenant) != null || TenantDirectory.problem(group) != null) {
            return error(404, "tenant " + tenant + " has no stored rule group " + group);
        }
        if (!rules.delete(tenant, group)) {
            return error(404, "tenant " + tenant + " has no stored rule group " + group);
        }
        log.info("rule group {} of tenant {} deleted by {}", group, tenant, who);
        return Answer.json(
                200,
                JSON.createObjectNode()
                        .put("deleted", group)
                        .put("tenant", tenant)
                        .toString());
    }

    private static Answer error(int status, String message) {
        return Answer.error(status, JsonErrorHandler.reason(status), message);
    }
}
