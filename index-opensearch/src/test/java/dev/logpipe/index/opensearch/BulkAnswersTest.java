package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParseException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A bulk answer read only as far as its errors flag. */
class BulkAnswersTest {
    private static boolean anyErrors(String answer) throws IOException {
        return BulkAnswers.anyErrors(answer.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anAnswerWithoutErrorsIsNotReadPastItsFlag() throws IOException {
        // what follows the flag is not even JSON: reading it would throw
        assertThat(anyErrors("{\"took\":12,\"errors\":false,\"items\":[{\"index\":{\"status\":201}},!!!"))
                .isFalse();
    }

    @Test
    void errorsAnywhereAtTheTopLevelAreFoundWhateverComesBefore() throws IOException {
        assertThat(anyErrors("{\"errors\":true,\"items\":[]}")).isTrue();
        assertThat(anyErrors(
                        "{\"took\":{\"a\":[1,{\"errors\":false}]},\"items\":[{\"errors\":false}],\"errors\":true}"))
                .as("a nested errors field is not the flag")
                .isTrue();
        assertThat(anyErrors("{\"items\":[{\"index\":{\"status\":201}}],\"errors\":false}"))
                .isFalse();
    }

    @Test
    void anAnswerWithoutTheFlagCountsAsErrorsSoItIsReadWhole() throws IOException {
        assertThat(anyErrors("{\"items\":[]}")).isTrue();
        assertThat(anyErrors("[]")).isTrue();
        assertThat(anyErrors("{\"errors\":\"false\"}")).as("not a boolean").isTrue();
    }

    @Test
    void anAnswerThatIsNotJsonIsAnError() {
        assertThatThrownBy(() -> anyErrors("{\"took\":1,,")).isInstanceOf(JsonParseException.class);
    }
}
