package dev.logpipe.forwarder.internal.process;

import com.google.re2j.Pattern;
import java.util.List;

/**
 * Include/exclude by RE2 regular expressions over the record text: a record passes if it matches any
 * include pattern (or there are none) and no exclude pattern. Filtered records still advance the
 * watermark. Thread-safe.
 */
public final class RecordFilter {
    private final Pattern include;
    private final Pattern exclude;

    public RecordFilter(List<String> include, List<String> exclude) {
        this.include = join(include);
        this.exclude = join(exclude);
    }

    public boolean isPassThrough() {
        return include == null && exclude == null;
    }

    public boolean accepts(CharSequence text) {
        if (include != null && !include.matcher(text).find()) {
            return false;
        }
        return exclude == null || !exclude.matcher(text).find();
    }

    private static Pattern join(List<String> patterns) {
        if (patterns.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (String p : patterns) {
            if (b.length() > 0) {
                b.append('|');
            }
            b.append("(?:").append(p).append(')');
        }
        return Pattern.compile(b.toString());
    }
}
