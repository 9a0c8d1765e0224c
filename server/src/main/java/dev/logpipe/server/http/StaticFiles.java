package dev.logpipe.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The web UI's files, from the class path under {@code ui/}: {@code /} is {@code index.html}, {@code /ui/NAME} a
 * file. Only plain names are served (no {@code ..}, no directories), with a content security policy that lets the
 * page load nothing but its own origin.
 */
final class StaticFiles {
    static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    private static final Map<String, String> TYPES = Map.of(
            "html",
            "text/html; charset=utf-8",
            "js",
            "text/javascript; charset=utf-8",
            "css",
            "text/css; charset=utf-8",
            "svg",
            "image/svg+xml",
            "txt",
            "text/plain; charset=utf-8",
            "png",
            "image/png",
            "ico",
            "image/x-icon");
    private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

    /** True when it answered (a UI path); false for paths that are not the UI's. */
    boolean serve(String path, Request request, Response response, Callback callback) throws IOException {
        String name;
        if (path.equals("/") || path.equals("/index.html")) {
            name = "index.html";
        } else if (path.startsWith("/ui/")) {
            name = path.substring(4);
        } else {
            return false;
        }
        if (!name.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.[a-z]+")) {
            Send.json(response, callback, 404, "{\"error\":\"not found\"}");
            return true;
        }
        if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            Send.json(response, callback, 405, "{\"error\":\"use GET\"}");
            return true;
        }
        byte[] body = cache.get(name);
        if (body == null) {
            try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream("ui/" + name)) {
                if (in == null) {
                    Send.json(response, callback, 404, "{\"error\":\"not found\"}");
                    return true;
                }
                body = in.readAllBytes();
            }
            cache.put(name, body);
        }
        String ext = name.substring(name.lastIndexOf('.') + 1);
        response.getHeaders().put("Content-Security-Policy", CSP);
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        Send.bytes(response, callback, 200, TYPES.getOrDefault(ext, "application/octet-stream"), body);
        return true;
    }
}
