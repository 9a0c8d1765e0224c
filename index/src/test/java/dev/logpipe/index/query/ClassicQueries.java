package dev.logpipe.index.query;

/**
 * Lucene's classic grammar exactly, into the tree, without logpipe's readings ({@link ParsedQuery}): the reference
 * {@code AstEquivalenceTest} holds the tree and its Lucene compiler to.
 */
public final class ClassicQueries {
    private ClassicQueries() {}

    /** @throws InvalidQuery the text does not parse, as {@link ParsedQuery#parse} words it */
    public static ParsedQuery parse(String text) {
        if (text.isBlank()) {
            return new ParsedQuery(text, new QueryNode.MatchAll());
        }
        try {
            return new ParsedQuery(text, AstBuilder.build(text, AstBuilder.Syntax.CLASSIC));
        } catch (StackOverflowError e) {
            throw InvalidQuery.nestedTooDeeply();
        }
    }
}
