package dev.logpipe.collector.internal.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The parts of an ingest request the handler needs, independent of the HTTP server.
 *
 * @param authorizations     every {@code Authorization} header value (more than one is refused as ambiguous)
 * @param certificateSubject the verified client certificate's subject (canonical), or null
 * @param remoteAddress      the client's IP address (the per-address caps)
 * @param contentLength      -1 when not given (chunked)
 * @param expectsContinue    the client sent {@code Expect: 100-continue}: it waits before sending the body, which
 *                           the server asks for only by reading it
 */
public record IngestRequest(
        List<String> authorizations,
        String certificateSubject,
        String remoteAddress,
        long contentLength,
        String contentEncoding,
        Body body,
        boolean expectsContinue) {
    public IngestRequest {
        authorizations = List.copyOf(authorizations);
    }

    /** A request whose client sends its body without waiting for {@code 100 Continue}. */
    public IngestRequest(
            List<String> authorizations,
            String certificateSubject,
            String remoteAddress,
            long contentLength,
            String contentEncoding,
            Body body) {
        this(authorizations, certificateSubject, remoteAddress, contentLength, contentEncoding, body, false);
    }

    /** Opens the body; called at most once, after admission. */
    public interface Body {
        InputStream open() throws IOException;
    }
}
