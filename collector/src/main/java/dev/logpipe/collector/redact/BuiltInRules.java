package dev.logpipe.collector.redact;

import com.google.re2j.Pattern;
import java.util.List;
import java.util.Locale;

/** The secret shapes every collector redacts (docs/collector.md#redaction lists them with examples). */
final class BuiltInRules {
    static final String SECRET_FIELD_RULE = "secret_field";

    private BuiltInRules() {
    }

    static List<Redactor.Rule> all() {
        return List.of(
                // A PEM private key block, whole (RSA, EC, OPENSSH, ENCRYPTED ... PRIVATE KEY).
                new Redactor.Rule("private_key",
                        Pattern.compile("-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)"),
                        "[REDACTED:private_key]", false),
                // Authorization: Bearer <token> and bare "bearer <token>".
                new Redactor.Rule("bearer_token",
                        Pattern.compile("(?i)\\bbearer\\s+[A-Za-z0-9._~+/=-]{8,}"),
                        "Bearer [REDACTED:bearer_token]", false),
                // AWS access key ids (AKIA long-term, ASIA temporary, and the other documented prefixes).
                new Redactor.Rule("aws_access_key",
                        Pattern.compile("\\b(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\\b"),
                        "[REDACTED:aws_access_key]", false),
                // password=..., secret: ..., api_key="...", token=... (the value up to a delimiter).
                new Redactor.Rule("secret_pair",
                        Pattern.compile("(?i)\\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|token)"
                                + "(\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s,;&\"']+)"),
                        "$1$2[REDACTED:secret_pair]", false),
                // 13-19 digits, optionally grouped by spaces or dashes; replaced only if the Luhn check passes.
                new Redactor.Rule("card_number",
                        Pattern.compile("\\b\\d(?:[ -]?\\d){12,18}\\b"),
                        "[REDACTED:card_number]", true));
    }

    /** A structured field whose name says it holds a secret (its whole value is masked). */
    static boolean isSecretName(String field) {
        String f = field.toLowerCase(Locale.ROOT);
        int dot = f.lastIndexOf('.');
        String leaf = dot < 0 ? f : f.substring(dot + 1);
        return leaf.equals("password") || leaf.equals("passwd") || leaf.equals("secret") || leaf.equals("api_key")
                || leaf.equals("apikey") || leaf.equals("token") || leaf.equals("access_token")
                || leaf.equals("authorization") || leaf.equals("private_key") || leaf.equals("client_secret");
    }
}
