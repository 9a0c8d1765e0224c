package dev.logpipe.collector;

import java.util.ArrayList;
import java.util.List;

/**
 * Secret shapes that must never reach Kafka: each is a text as it appears in a log line and the part of it that is
 * the secret (what must not be found in either topic afterwards).
 */
final class SecretCorpus {
    /** {@code text} as logged; {@code secret}, the substring that must vanish. */
    record Shape(String name, String text, String secret) {}

    private SecretCorpus() {}

    private static String alnum(String seed, int n) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < n) {
            sb.append(seed);
        }
        return sb.substring(0, n);
    }

    static List<Shape> inText() {
        List<Shape> s = new ArrayList<>();
        s.add(new Shape("bearer header", "Authorization: Bearer abcdef0123456789xyz", "abcdef0123456789xyz"));
        s.add(new Shape("basic header", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"));
        s.add(new Shape("proxy basic", "Proxy-Authorization: Basic cHJveHk6cHJveHkwMDEz", "cHJveHk6cHJveHkwMDEz"));
        s.add(new Shape("negotiate", "Authorization: Negotiate YIIneg0014abcdef", "YIIneg0014abcdef"));
        s.add(new Shape("bearer colon", "Bearer: tok3nValue99", "tok3nValue99"));
        s.add(new Shape(
                "aws secret key",
                "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        s.add(new Shape("aws key id", "using AKIAIOSFODNN7EXAMPLE now", "AKIAIOSFODNN7EXAMPLE"));
        s.add(new Shape("aws key id glued", "keyAKIAIOSFODNN7EXAMPL2x", "AKIAIOSFODNN7EXAMPL2"));
        s.add(new Shape("aws temporary key id", "sts ASIAY34FZKBOKMUTVV7A issued", "ASIAY34FZKBOKMUTVV7A"));
        s.add(new Shape("postgres url", "connect postgres://admin:pgS3cret@db.internal:5432/app", "pgS3cret"));
        s.add(new Shape("https url", "GET https://user:p%40ss01@host/x", "p%40ss01"));
        s.add(new Shape("mysql url", "mysql://root:rootpw0020@localhost/db", "rootpw0020"));
        s.add(new Shape("amqp url", "amqp://guest:amqppw0021@rabbit:5672", "amqppw0021"));
        s.add(new Shape("slack bot", "slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"));
        s.add(new Shape("slack user", "slack xoxp-9876543210-zyxwvutsrq", "xoxp-9876543210-zyxwvutsrq"));
        s.add(new Shape("slack app", "slack xoxa-2-abcdefghij0022", "xoxa-2-abcdefghij0022"));
        String ghp = "ghp_" + alnum("A1b2C3d4E5", 36);
        s.add(new Shape("github classic", "token " + ghp, ghp));
        String gho = "gho_" + alnum("Zz9Yy8Xx7W", 36);
        s.add(new Shape("github oauth", gho + " in use", gho));
        String ghs = "ghs_" + alnum("Q1w2E3r4T5", 36);
        s.add(new Shape("github server", "x=" + ghs, ghs));
        String pat = "github_pat_" + alnum("11ABCDEFG0", 40);
        s.add(new Shape("github fine-grained", "pat " + pat, pat));
        String glpat = "glpat-" + alnum("xYz12AbC34", 20);
        s.add(new Shape("gitlab", "gitlab " + glpat, glpat));
        String skLive = "sk_live_" + alnum("51Hab3CdE4", 24);
        s.add(new Shape("stripe live", "stripe " + skLive, skLive));
        String skTest = "sk_test_" + alnum("4eC39HqLyj", 24);
        s.add(new Shape("stripe test", "stripe " + skTest, skTest));
        String rk = "rk_live_" + alnum("77ab88CD99", 24);
        s.add(new Shape("stripe restricted", "restricted " + rk, rk));
        String whsec = "whsec_" + alnum("MfKQ9r8GKY", 32);
        s.add(new Shape("stripe webhook", "webhook " + whsec, whsec));
        String google = "AIza" + alnum("SyD-9tSrke72PouQMnMX", 35);
        s.add(new Shape("google api key", "maps " + google, google));
        String jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        s.add(new Shape("bare jwt", "session " + jwt + " expired", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"));
        s.add(new Shape("pass=", "login pass=hunter2pass ok", "hunter2pass"));
        s.add(new Shape("pw=", "login pw=hunter3pw ok", "hunter3pw"));
        s.add(new Shape("passphrase=", "gpg passphrase=correct-horse-battery", "correct-horse-battery"));
        s.add(new Shape("quoted password", "password: 'quoted secret 01'", "quoted secret 01"));
        s.add(new Shape("DB_PASSWORD", "env DB_PASSWORD=dbpw0001 loaded", "dbpw0001"));
        s.add(new Shape("PGPASSWORD", "PGPASSWORD=pgpw0019 psql", "pgpw0019"));
        s.add(new Shape("pwd=", "pwd=pwd0002", "pwd0002"));
        s.add(new Shape("api-key:", "api-key: apikey0003", "apikey0003"));
        s.add(new Shape("x_api_key=", "x_api_key=xapikey0004", "xapikey0004"));
        s.add(new Shape("token=", "token=tok0005&next=1", "tok0005"));
        s.add(new Shape("client_secret=", "client_secret=cs0006", "cs0006"));
        s.add(new Shape("cookie", "Cookie: session=abc0007", "abc0007"));
        s.add(new Shape("set-cookie", "Set-Cookie: sid=abc0008; Path=/", "abc0008"));
        s.add(new Shape("secret=", "secret=topsecret0009", "topsecret0009"));
        s.add(new Shape("auth_token=", "auth_token=authtok0010", "authtok0010"));
        s.add(new Shape("access_token=", "access_token=accesstok0011", "accesstok0011"));
        s.add(new Shape("refresh_token=", "refresh_token=refresh0012", "refresh0012"));
        s.add(new Shape("json in text", "body {\"password\":\"jsonpw0015\"}", "jsonpw0015"));
        s.add(new Shape("credentials=", "credentials=cred0016", "cred0016"));
        s.add(new Shape("private_key=", "private_key=pk0017", "pk0017"));
        s.add(new Shape("session_id=", "session_id=sess0018", "sess0018"));
        s.add(new Shape("secret: yaml", "secret: yaml0023", "yaml0023"));
        s.add(new Shape("SECRET_KEY=", "SECRET_KEY=django0024", "django0024"));
        s.add(new Shape("signing_key=", "signing_key=signkey0025", "signkey0025"));
        s.add(new Shape("api_key quoted", "api_key=\"quoted0026\"", "quoted0026"));
        s.add(new Shape("token single-quoted", "token: 'single0027'", "single0027"));
        s.add(new Shape("apiKey camel", "apiKey=camel0028", "camel0028"));
        s.add(new Shape("card spaces", "card 4111 1111 1111 1111 charged", "4111 1111 1111 1111"));
        s.add(new Shape("card dots", "card 4111.1111.1111.1111 charged", "4111.1111.1111.1111"));
        s.add(new Shape("card double spaces", "card 5500  0000  0000  0004 charged", "5500  0000  0000  0004"));
        s.add(new Shape("card dashes", "card 4012-8888-8888-1881 charged", "4012-8888-8888-1881"));
        s.add(new Shape("card plain", "card 5105105105105100 charged", "5105105105105100"));
        s.add(new Shape("card amex", "amex 378282246310005", "378282246310005"));
        s.add(new Shape(
                "rsa private key",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0001\n" + "-----END RSA PRIVATE KEY-----",
                "MIIEpAIBAAKCAQEA0001"));
        s.add(new Shape(
                "openssh private key",
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAA0002\n"
                        + "-----END OPENSSH PRIVATE KEY-----",
                "b3BlbnNzaC1rZXktdjEAAA0002"));
        s.add(new Shape(
                "pgp private key",
                "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGPgpKey0003\n" + "-----END PGP PRIVATE KEY BLOCK-----",
                "lQOYBGPgpKey0003"));
        s.add(new Shape("card after a date", "2024-06-01 4111 1111 1111 1111 paid", "1111 1111 1111 1111"));
        s.add(new Shape("card glued to a name", "pan_4111111111111111 stored", "4111111111111111"));
        // Generic words before a card say nothing about it: a redactor that trusted them failed open.
        s.add(new Shape("card after account number", "acct number 5555 5555 5555 4444 charged", "5555 5555 5555 4444"));
        s.add(new Shape("card after ref", "ref: 4012888888881881", "4012888888881881"));
        s.add(new Shape("card as an order number", "order #4000056655665556 shipped", "4000056655665556"));
        s.add(new Shape("card after total", "total 6011000990139424 due", "6011000990139424"));
        s.add(new Shape("card after phone", "phone: 5200828282828210", "5200828282828210"));
        s.add(new Shape("card in an order path", "GET /orders/378734493671000 200", "378734493671000"));
        s.add(new Shape("fat arrow", "'password' => 'arrow0029'", "arrow0029"));
        s.add(new Shape("walrus", "password := walrus0030", "walrus0030"));
        s.add(new Shape("two-word name", "API key: twoword0031", "twoword0031"));
        s.add(new Shape("session id spaced", "session id = spaced0032", "spaced0032"));
        s.add(new Shape("numbered name", "PASSWORD2=numbered0033", "numbered0033"));
        s.add(new Shape("escaped slashes url", "postgres:\\/\\/admin:slashpw0034@db", "slashpw0034"));
        return s;
    }

    /**
     * Field names that say nothing of a card ({@code number}, {@code phone}, ...), each holding one ({@code text} is
     * the name, {@code secret} the card's digits): sent as a string and as a JSON number.
     */
    static List<Shape> cardsUnderGenericNames() {
        return List.of(
                new Shape("number", "number", "4242424242424242"),
                new Shape("phone", "phone", "3566002020360505"),
                new Shape("total", "total", "2223003122003222"),
                new Shape("ref", "ref", "4917610000000000"),
                new Shape("order_number", "order_number", "4000000000000002"),
                new Shape("no", "no", "36227206271667"));
    }

    /** Field names that say their value is a secret, each with a distinct value. */
    static List<Shape> secretFieldNames() {
        List<Shape> s = new ArrayList<>();
        String[] names = {
            "DB_PASSWORD",
            "pwd",
            "user_password",
            "api-key",
            "x_api_key",
            "auth",
            "credentials",
            "apiKey",
            "client-secret",
            "Authorization",
            "session_token",
            "private.key",
            "PGPASSWORD",
            "passphrase"
        };
        for (int i = 0; i < names.length; i++) {
            s.add(new Shape(names[i], names[i], String.format("fieldsecret%04d", i)));
        }
        return s;
    }
}
