package dev.logpipe.index.query;

import dev.logpipe.index.query.QueryNode.MatchAll;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The user's query, parsed once per request: its text (for the cursor's binding and the audit log) and its syntax
 * tree, which each engine translates. Classic syntax (docs/search.md); a blank text matches everything.
 */
public record ParsedQuery(String text, QueryNode root) {
    public static final ParsedQuery ALL = new ParsedQuery("", new MatchAll());

    public ParsedQuery {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(root, "root");
    }

    /** @throws InvalidQuery the text does not parse; its {@link InvalidQuery#problem()} says why and where */
    public static ParsedQuery parse(String text) {
        if (text.isBlank()) {
            return new ParsedQuery(text, new MatchAll());
        }
        try {
            return new ParsedQuery(text, AstBuilder.build(text));
        } catch (StackOverflowError e) { // the grammar recurses per nesting level
            throw InvalidQuery.nestedTooDeeply();
        }
    }

    /** Label name to the values one of which every match holds; empty when the query does not pin any. */
    public Map<String, Set<String>> requiredLabels() {
        return RequiredLabels.of(root);
    }
}
