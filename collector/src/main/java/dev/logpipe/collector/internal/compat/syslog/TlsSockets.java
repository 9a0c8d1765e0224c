package dev.logpipe.collector.internal.compat.syslog;

import dev.logpipe.collector.config.CollectorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;

/** TLS server sockets from PKCS12 stores (as the HTTP listener's), and the verified client certificate's subject. */
final class TlsSockets {
    private TlsSockets() {}

    static ServerSocket server(CollectorConfig.Tls tls) throws IOException {
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(
                    load(tls.keystore(), tls.keystorePassword()),
                    tls.keystorePassword().toCharArray());
            TrustManagerFactory tmf = null;
            if (tls.truststore() != null) {
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(load(tls.truststore(), tls.truststorePassword()));
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            SSLServerSocket s = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket();
            s.setNeedClientAuth(tls.clientAuth() == CollectorConfig.ClientAuth.NEED);
            if (tls.clientAuth() == CollectorConfig.ClientAuth.WANT) {
                s.setWantClientAuth(true);
            }
            return s;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS from " + tls.keystore() + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore load(Path file, String password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password.toCharArray());
        }
        return ks;
    }

    /** The canonical subject of the socket's verified client certificate, or null. */
    static String peerSubject(Socket s) throws IOException {
        if (!(s instanceof SSLSocket ssl)) {
            return null;
        }
        try {
            ssl.startHandshake();
            if (ssl.getSession().getPeerCertificates()[0] instanceof X509Certificate c) {
                return c.getSubjectX500Principal().getName(X500Principal.CANONICAL);
            }
            return null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }
}
