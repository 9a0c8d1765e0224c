package dev.logpipe.index.analysis;

import java.io.IOException;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/**
 * Splits log text into compound tokens and, when asked, their parts (docs/search.md#analyzer).
 *
 * <p>A token is a run of letters, digits and the joiners {@code . - / @ _} ({@link LogTokens}); every other character (space, {@code =},
 * {@code :}, quotes, brackets, commas, ...) ends it. Joiners at either end of a run are dropped, the rest is
 * lower-cased: {@code order_id=CO-9931,} gives {@code order_id} and {@code co-9931}. With parts, a token that holds a
 * joiner is followed, at the same position, by the pieces between its joiners: {@code co-9931} also gives {@code co}
 * and {@code 9931}. A run longer than {@link #MAX_TOKEN_CHARS} is cut into pieces of that length.
 *
 * <p>Hand-written rather than a chain of filters: it runs for every record on the indexer's hot path and allocates
 * nothing per token.
 */
final class LogTokenizer extends Tokenizer {
    static final int MAX_TOKEN_CHARS = LogTokens.MAX_TOKEN_CHARS;
    private static final int MAX_PARTS = MAX_TOKEN_CHARS / 2 + 1;

    private final boolean parts;
    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
    private final PositionIncrementAttribute position = addAttribute(PositionIncrementAttribute.class);

    private final char[] io = new char[4096];
    private int ioLen;
    private int ioPos;
    /** Offset in the input of io[0]. */
    private int ioBase;

    private final char[] token = new char[MAX_TOKEN_CHARS];
    private int tokenLen;
    private int tokenStart;
    private final int[] partStart = new int[MAX_PARTS];
    private final int[] partEnd = new int[MAX_PARTS];
    private int partCount;
    private int partNext;
    private int finalOffset;

    LogTokenizer(boolean parts) {
        this.parts = parts;
    }

    @Override
    public boolean incrementToken() throws IOException {
        clearAttributes();
        if (partNext < partCount) {
            int s = partStart[partNext];
            int e = partEnd[partNext++];
            term.copyBuffer(token, s, e - s);
            offset.setOffset(correctOffset(tokenStart + s), correctOffset(tokenStart + e));
            position.setPositionIncrement(0);
            return true;
        }
        while (readRun()) {
            int start = 0;
            int end = tokenLen;
            while (start < end && isJoiner(token[start])) {
                start++;
            }
            while (end > start && isJoiner(token[end - 1])) {
                end--;
            }
            if (start == end) {
                continue;
            }
            partCount = 0;
            partNext = 0;
            if (parts) {
                findParts(start, end);
            }
            term.copyBuffer(token, start, end - start);
            offset.setOffset(correctOffset(tokenStart + start), correctOffset(tokenStart + end));
            position.setPositionIncrement(1);
            return true;
        }
        return false;
    }

    /** Reads the next run of token characters into {@code token}, lower-cased; false at the end of the input. */
    private boolean readRun() throws IOException {
        tokenLen = 0;
        while (true) {
            if (ioPos == ioLen) {
                ioBase += ioLen;
                ioLen = input.read(io, 0, io.length);
                ioPos = 0;
                if (ioLen <= 0) {
                    ioLen = 0;
                    finalOffset = correctOffset(ioBase);
                    return tokenLen > 0;
                }
            }
            char c = io[ioPos];
            if (isTokenChar(c)) {
                if (tokenLen == 0) {
                    tokenStart = ioBase + ioPos;
                }
                token[tokenLen++] = Character.toLowerCase(c);
                ioPos++;
                if (tokenLen == MAX_TOKEN_CHARS) {
                    return true;
                }
            } else {
                ioPos++;
                if (tokenLen > 0) {
                    return true;
                }
            }
        }
    }

    private void findParts(int start, int end) {
        int s = start;
        boolean joined = false;
        for (int i = start; i <= end; i++) {
            if (i == end || isJoiner(token[i])) {
                if (i < end) {
                    joined = true;
                }
                if (i > s && partCount < MAX_PARTS) {
                    partStart[partCount] = s;
                    partEnd[partCount++] = i;
                }
                s = i + 1;
            }
        }
        if (!joined) {
            partCount = 0;
        }
    }

    private static boolean isJoiner(char c) {
        return LogTokens.isJoiner(c);
    }

    private static boolean isTokenChar(char c) {
        return LogTokens.isTokenChar(c);
    }

    @Override
    public void end() throws IOException {
        super.end();
        offset.setOffset(finalOffset, finalOffset);
    }

    @Override
    public void reset() throws IOException {
        super.reset();
        ioLen = 0;
        ioPos = 0;
        ioBase = 0;
        tokenLen = 0;
        partCount = 0;
        partNext = 0;
        finalOffset = 0;
    }
}
