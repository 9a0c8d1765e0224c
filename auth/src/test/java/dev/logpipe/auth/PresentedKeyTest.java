package dev.logpipe.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class PresentedKeyTest {
    static final String KEY = "lpk_0123456789abcdef";

    static String basic(String pair) {
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void oneBearerOrBasicHeaderPresentsItsKey() {
        assertThat(PresentedKey.read(List.of("Bearer " + KEY)))
                .isEqualTo(new PresentedKey(PresentedKey.Status.KEY, KEY));
        assertThat(PresentedKey.read(List.of("bearer   " + KEY + "  ")).key()).isEqualTo(KEY);
        assertThat(PresentedKey.read(List.of(basic("elastic:" + KEY))).key()).isEqualTo(KEY);
        assertThat(PresentedKey.read(List.of(basic(":" + KEY))).key()).isEqualTo(KEY);
    }

    @Test
    void nothingMalformedOrOfAnotherSchemePresentsNoKey() {
        for (List<String> h : List.of(
                List.<String>of(),
                List.of(""),
                List.of("Bearer "),
                List.of("Bearer a b"),
                List.of("Digest " + KEY),
                List.of(KEY),
                List.of("Basic !!!not-base64!!!"),
                List.of(basic(KEY)),
                List.of(basic("elastic:")))) {
            assertThat(PresentedKey.read(h)).as(h.toString()).isEqualTo(PresentedKey.NONE);
        }
        assertThat(PresentedKey.read(null)).isEqualTo(PresentedKey.NONE);
    }

    @Test
    void twoCredentialsAreAmbiguousWhateverTheyAre() {
        for (List<String> h : List.of(
                List.of("Bearer admin-key-0123456789", "Bearer " + KEY),
                List.of("Bearer " + KEY, "Bearer " + KEY),
                List.of("Bearer " + KEY, basic("u:" + KEY)),
                List.of("Bearer " + KEY, ""),
                List.of("Bearer admin-key-0123456789, Bearer " + KEY))) {
            assertThat(PresentedKey.read(h).status()).as(h.toString()).isEqualTo(PresentedKey.Status.AMBIGUOUS);
        }
    }

    @Test
    void theKeyIsNeverInItsText() {
        assertThat(PresentedKey.read(List.of("Bearer " + KEY)).toString()).doesNotContain(KEY);
    }
}
