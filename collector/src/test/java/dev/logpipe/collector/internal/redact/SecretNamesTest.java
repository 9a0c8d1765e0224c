package dev.logpipe.collector.internal.redact;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SecretNamesTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "password",
                "DB_PASSWORD",
                "pwd",
                "user_password",
                "api-key",
                "x_api_key",
                "apiKey",
                "APIKEY",
                "auth",
                "credentials",
                "headers.Cookie",
                "Set-Cookie",
                "PGPASSWORD",
                "aws_secret_access_key",
                "client_secret",
                "session_id",
                "sessionId",
                "private.key",
                "Authorization",
                "x-auth-token",
                "passphrase",
                "pass",
                "pw",
                "refresh_token",
                "jwt",
                "signing_key",
                "mySecret"
            })
    void namesThatHoldSecretsAreCaughtByTheirParts(String name) {
        assertThat(SecretNames.isSecret(name)).as(name).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "message",
                "token_count",
                "prompt_tokens",
                "tokens",
                "author",
                "password_expires_at",
                "key",
                "monkey",
                "bypass",
                "compass",
                "passenger",
                "token_type",
                "api_key_id",
                "keyboard",
                "session",
                "authority",
                "secretary_name",
                "user",
                "path"
            })
    void namesThatOnlyMentionASecretOrLookAlikeAreNot(String name) {
        assertThat(SecretNames.isSecret(name)).as(name).isFalse();
    }

    /** One verdict per name serves both rules: a secret is masked, an id is not scanned for cards, the rest is. */
    @ParameterizedTest
    @CsvSource({
        "DB_PASSWORD, SECRET",
        "session_id, SECRET",
        "api_key_id, ID",
        "dd.trace_id, ID",
        "epoch_ns, ID",
        "card_id, PLAIN",
        "number, PLAIN",
        "message, PLAIN"
    })
    void aNameIsASecretAnIdOrPlain(String name, SecretNames.NameKind kind) {
        assertThat(SecretNames.kind(name)).as(name).isEqualTo(kind);
        assertThat(SecretNames.kind(name)).as("cached " + name).isEqualTo(kind);
    }
}
