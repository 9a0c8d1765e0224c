package dev.logpipe.collector.config;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.security.auth.x500.X500Principal;

/** Distinguished names compared the same way on both sides: RFC 2253 canonical form of an X.500 name. */
final class ClientCertificates {
    private ClientCertificates() {}

    /** The canonical form of {@code dn}, or null if it is not a distinguished name. */
    public static String normalize(String dn) {
        try {
            new LdapName(dn);
            return new X500Principal(dn).getName(X500Principal.CANONICAL);
        } catch (InvalidNameException | IllegalArgumentException e) {
            return null;
        }
    }
}
