package dev.logpipe.collector.internal.redact;

import com.google.re2j.Pattern;
import java.util.List;

/**
 * The secret shapes every collector redacts, in the order they run (docs/collector.md#redaction lists each with an
 * example). Each rule names the {@link Triggers} bit without which it cannot match. Secret {@code name=value} pairs
 * are not a regex: {@link SecretPairs} runs after these, then the card numbers ({@link CardNumbers}, not a regex
 * either).
 */
final class BuiltInRules {
    static final String SECRET_FIELD_RULE = "secret_field";

    private BuiltInRules() {}

    private static Redactor.Rule rule(String name, int trigger, String pattern, String replacement) {
        return new Redactor.Rule(name, Pattern.compile(pattern), replacement, trigger);
    }

    /** The rules before the secret pairs. */
    static List<Redactor.Rule> beforePairs() {
        return List.of(
                // A PEM private key block, whole (RSA, EC, OPENSSH, ENCRYPTED ... PRIVATE KEY).
                rule(
                        "private_key",
                        Triggers.PEM,
                        "-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|$)",
                        "[REDACTED:private_key]"),
                rule(
                        "bearer_token",
                        Triggers.BEARER,
                        "(?i)\\bbearer\\s+[A-Za-z0-9._~+/=-]{8,}",
                        "Bearer [REDACTED:bearer_token]"),
                rule(
                        "basic_auth",
                        Triggers.BASIC,
                        "(?i)\\bbasic\\s+[A-Za-z0-9+/]{6,}={0,2}",
                        "Basic [REDACTED:basic_auth]"),
                // scheme://user:password@host (also with JSON-escaped slashes): the password goes, the user and host
                // stay.
                rule(
                        "url_credentials",
                        Triggers.URL,
                        "\\b([A-Za-z][A-Za-z0-9+.-]*:(?://|\\\\/\\\\/)[^/\\\\\\s:@]*):[^/\\s@]+@",
                        "$1:[REDACTED:url_credentials]@"),
                rule(
                        "jwt",
                        Triggers.JWT,
                        "\\beyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*",
                        "[REDACTED:jwt]"),
                rule(
                        "github_token",
                        Triggers.GITHUB,
                        "\\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
                        "[REDACTED:github_token]"),
                rule("gitlab_token", Triggers.GITLAB, "\\bglpat-[A-Za-z0-9_-]{20,}", "[REDACTED:gitlab_token]"),
                rule("slack_token", Triggers.SLACK, "\\bxox[abposr]-[A-Za-z0-9-]{10,}", "[REDACTED:slack_token]"),
                rule(
                        "stripe_key",
                        Triggers.STRIPE,
                        "\\b(?:[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,})",
                        "[REDACTED:stripe_key]"),
                rule("google_api_key", Triggers.GOOGLE, "AIza[0-9A-Za-z_-]{35}", "[REDACTED:google_api_key]"),
                // AWS access key ids, also glued to other letters (no word boundary).
                rule(
                        "aws_access_key",
                        Triggers.AWS,
                        "(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}",
                        "[REDACTED:aws_access_key]"));
    }
}
