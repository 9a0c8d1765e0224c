package dev.logpipe.query.internal.loki;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/** LogQL's regular expressions: RE2 syntax, matched in linear time ({@code com.google.re2j}). */
final class Regexes {
    private Regexes() {}

    /** The pattern as written (a line filter finds it anywhere in the line). */
    static Pattern compile(String regex, int position) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new InvalidLogQl("invalid regular expression \"" + regex + "\": " + e.getDescription(), position);
        }
    }

    /** The pattern anchored at both ends, as label matchers use it ({@code service=~"api|web"} matches all of a value). */
    static Pattern anchored(String regex) {
        return compile("^(?:" + regex + ")$", 0);
    }
}
