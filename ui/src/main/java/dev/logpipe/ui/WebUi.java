package dev.logpipe.ui;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The web UI's files, from the class path under {@code ui/}: {@code /} is {@code index.html}, {@code /ui/NAME} a
 * file, {@code /ui/vendor/NAME} a file of a front-end library's WebJar (uPlot). Only plain names are served (no
 * {@code ..}, no directories), with a content security policy that lets the page load nothing but its own origin.
 * Mounted by {@code logpipe query} and by the standalone: one copy of the UI, one way of serving it.
 */
public final class WebUi {
    public static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    /** The front-end libraries, by the name the UI imports them under: the file inside their WebJar. */
    private static final Map<String, String> VENDOR = Map.of(
            "uPlot.esm.js", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.esm.js",
            "uPlot.min.css", "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css");

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
    public boolean serve(String path, Request request, Response response, Callback callback) throws IOException {
        String resource;
        String name;
        if (path.equals("/") || path.equals("/index.html")) {
            name = "index.html";
            resource = "ui/index.html";
        } else if (path.startsWith("/ui/vendor/")) {
            name = path.substring("/ui/vendor/".length());
            resource = VENDOR.get(name);
        } else if (path.startsWith("/ui/")) {
            name = path.substring(4);
            resource = "ui/" + name;
        } else {
            return false;
        }
        if (resource == null || !name.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.[a-z]+")) {
            json(response, callback, 404, "{\"error\":\"not found\"}");
            return true;
        }
        if (!request.getMethod().equals("GET") && !request.getMethod().equals("HEAD")) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            json(response, callback, 405, "{\"error\":\"use GET\"}");
            return true;
        }
        byte[] body = cache.get(resource);
        if (body == null) {
            try (InputStream in = WebUi.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    json(response, callback, 404, "{\"error\":\"not found\"}");
                    return true;
                }
                body = in.readAllBytes();
            }
            cache.put(resource, body);
        }
        String ext = name.substring(name.lastIndexOf('.') + 1);
        response.getHeaders().put("Content-Security-Policy", CSP);
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        send(response, callback, 200, TYPES.getOrDefault(ext, "application/octet-stream"), body);
        return true;
    }

    private static void json(Response response, Callback callback, int status, String body) {
        send(response, callback, status, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(Response response, Callback callback, int status, String type, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
