package dev.logpipe.query.internal.loki;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The templates of {@code line_format} and {@code label_format}: text with {@code {{.label}}} (a label's value, empty
 * when absent) and {@code {{__line__}}}; any other template action (functions, pipelines, conditions) is refused.
 */
final class Templates {
    private static final Pattern ACTION = Pattern.compile("\\{\\{-?\\s*(.*?)\\s*-?}}", Pattern.DOTALL);
    private static final Pattern LABEL = Pattern.compile("\\.([A-Za-z_][A-Za-z0-9_]*)|__line__");

    private Templates() {}

    static void check(String template, int position) {
        Matcher m = ACTION.matcher(template);
        while (m.find()) {
            if (!LABEL.matcher(m.group(1)).matches()) {
                throw InvalidLogQl.unsupported(
                        "the template action {{" + m.group(1) + "}} (only {{.label}} and {{__line__}})", position);
            }
        }
    }

    static String render(String template, Map<String, String> labels, String line) {
        Matcher m = ACTION.matcher(template);
        StringBuilder out = new StringBuilder();
        int last = 0;
        while (m.find()) {
            out.append(template, last, m.start());
            String action = m.group(1);
            out.append(action.equals("__line__") ? line : labels.getOrDefault(action.substring(1), ""));
            last = m.end();
        }
        out.append(template, last, template.length());
        return out.toString();
    }
}
