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
                        "[REDACTED:private_key]", false, t -> t.contains("PRIVATE KEY-----")),
                // Authorization: Bearer <token> and bare "bearer <token>".
                new Redactor.Rule("bearer_token",
                        Pattern.compile("(?i)\\bbearer\\s+[A-Za-z0-9._~+/=-]{8,}"),
                        "Bearer [REDACTED:bearer_token]", false, t -> containsIgnoreCase(t, "bearer")),
                // AWS access key ids (AKIA long-term, ASIA temporary, and the other documented prefixes).
                new Redactor.Rule("aws_access_key",
                        Pattern.compile("\\b(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\\b"),
                        "[REDACTED:aws_access_key]", false, BuiltInRules::mayHoldAwsKey),
                // password=..., secret: ..., api_key="...", token=... (the value up to a delimiter).
                // Also inside JSON text (a dead letter's raw line): "password":"x" and password=\"x\".
                new Redactor.Rule("secret_pair",
                        Pattern.compile("(?i)([\\w-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token"
                                + "|auth[_-]?token|token))(\\\\?\"?\\s*[=:]\\s*)"
                                + "(\\\\?\"(?:[^\"\\\\]|\\\\[^\"])*\\\\?\"|'[^']*'|[^\\s,;&\"'\\\\}]+)"),
                        "$1$2[REDACTED:secret_pair]", false, BuiltInRules::mayHoldSecretPair),
                // 13-19 digits, optionally grouped by spaces or dashes; replaced only if the Luhn check passes.
                new Redactor.Rule("card_number",
                        Pattern.compile("\\b\\d(?:[ -]?\\d){12,18}\\b"),
                        "[REDACTED:card_number]", true, BuiltInRules::mayHoldCardNumber));
    }

    private static final String[] SECRET_WORDS = {"pass", "pwd", "secret", "key", "token"};

    static boolean containsIgnoreCase(String text, String lowerWord) {
        int n = lowerWord.length();
        char first = lowerWord.charAt(0);
        char firstUpper = Character.toUpperCase(first);
        for (int i = 0; i + n <= text.length(); i++) {
            char c = text.charAt(i);
            if ((c == first || c == firstUpper) && text.regionMatches(true, i, lowerWord, 0, n)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A pair needs a separator with a key word right before it (spaces allowed): the identifier before each '=' or
     * ':' is checked against the key words, so ordinary key=value text costs one short look per separator.
     */
    static boolean mayHoldSecretPair(String t) {
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c != '=' && c != ':') {
                continue;
            }
            int j = i - 1;
            while (j >= 0 && Character.isWhitespace(t.charAt(j))) {
                j--;
            }
            if (j >= 0 && t.charAt(j) == '"') {
                j--; // "password": in JSON
            }
            if (j >= 0 && t.charAt(j) == '\\') {
                j--; // \"password\": in JSON inside a string
            }
            int end = j + 1;
            while (j >= 0 && end - j <= 24 && isIdentifier(t.charAt(j))) {
                j--;
            }
            for (String w : SECRET_WORDS) {
                for (int k = j + 1; k + w.length() <= end; k++) {
                    if (t.regionMatches(true, k, w, 0, w.length())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean isIdentifier(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '-';
    }

    /** An AWS key id starts with 'A' and has 19 more upper-case letters or digits. */
    static boolean mayHoldAwsKey(String t) {
        for (int i = t.indexOf('A'); i >= 0 && i + 20 <= t.length(); i = t.indexOf('A', i + 1)) {
            int run = 0;
            while (run < 20 && isUpperOrDigit(t.charAt(i + run))) {
                run++;
            }
            if (run == 20) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUpperOrDigit(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** A card number is 13 or more digits in a row, single spaces or dashes allowed between them. */
    static boolean mayHoldCardNumber(String t) {
        int digits = 0;
        boolean lastWasSeparator = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c >= '0' && c <= '9') {
                if (++digits >= 13) {
                    return true;
                }
                lastWasSeparator = false;
            } else if ((c == ' ' || c == '-') && digits > 0 && !lastWasSeparator) {
                lastWasSeparator = true;
            } else {
                digits = 0;
                lastWasSeparator = false;
            }
        }
        return false;
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
