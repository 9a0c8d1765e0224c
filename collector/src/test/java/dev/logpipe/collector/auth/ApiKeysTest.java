package dev.logpipe.collector.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.collector.config.CollectorConfigLoader;
import dev.logpipe.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ApiKeysTest {
    private static final String KEY = "acme-key-0123456789";
    private final ApiKeys keys = keys();

    private static ApiKeys keys() {
        try {
            return new ApiKeys(new CollectorConfigLoader()
                    .parse("""
            tenants:
              - id: acme
                api_key_sha256: ['%s']
            kafka:
              bootstrap_servers: 127.0.0.1:9092
            """.formatted(ApiKeys.sha256(KEY)), "test")
                    .tenants());
        } catch (ConfigException e) {
            throw new AssertionError(e);
        }
    }

    private static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void basicAuthWithTheKeyAsThePasswordAuthenticatesWhateverTheUserName() {
        for (String user : new String[] {"elastic", "", "logpipe", "a:b"}) {
            CollectorConfig.Tenant t = keys.authenticate(basic(user.replace(":", "") + ":" + KEY));
            assertThat(t).as(user).isNotNull();
            assertThat(t.id()).isEqualTo("acme");
        }
        assertThat(keys.authenticate("basic " + Base64.getEncoder().encodeToString((":" + KEY).getBytes())))
                .isNotNull();
    }

    @Test
    void basicAuthWithAnotherPasswordNoPasswordOrBrokenBase64IsRefused() {
        assertThat(keys.authenticate(basic("elastic:wrong"))).isNull();
        assertThat(keys.authenticate(basic(KEY)))
                .as("the key as the user name, no colon")
                .isNull();
        assertThat(keys.authenticate(basic("elastic:"))).isNull();
        assertThat(keys.authenticate("Basic !!!not-base64!!!")).isNull();
        assertThat(keys.authenticate("Basic ")).isNull();
        assertThat(keys.authenticate("Digest " + KEY)).isNull();
    }

    @Test
    void bearerStillAuthenticates() {
        assertThat(keys.authenticate("Bearer " + KEY).id()).isEqualTo("acme");
        assertThat(keys.authenticate("Bearer wrong")).isNull();
    }
}
