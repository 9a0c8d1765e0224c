package dev.logpipe.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CloseAllTest {
    private final List<String> closed = new ArrayList<>();

    private AutoCloseable part(String name) {
        return () -> closed.add(name);
    }

    private AutoCloseable failing(String name) {
        return () -> {
            closed.add(name);
            throw new IOException(name + " failed");
        };
    }

    @Test
    void closesEveryPartInOrderSkippingMissingOnes() throws Exception {
        CloseAll.inOrder(part("port"), null, part("loop"), part("shards"));
        assertThat(closed).containsExactly("port", "loop", "shards");
    }

    @Test
    void aFailingPartDoesNotLeaveTheLaterOnesOpenAndTheFirstFailureIsThrown() {
        assertThatThrownBy(() -> CloseAll.inOrder(failing("port"), part("loop"), failing("archive"), part("audit")))
                .isInstanceOf(IOException.class)
                .hasMessage("port failed")
                .satisfies(e -> assertThat(e.getSuppressed())
                        .extracting(Throwable::getMessage)
                        .containsExactly("archive failed"));
        assertThat(closed).containsExactly("port", "loop", "archive", "audit");
    }

    @Test
    void anErrorStillClosesTheLaterPartsAndIsRethrownAsItself() {
        AutoCloseable broken = () -> {
            closed.add("port");
            throw new AssertionError("port broke");
        };
        assertThatThrownBy(() -> CloseAll.inOrder(broken, part("engine"), part("audit")))
                .isInstanceOf(AssertionError.class)
                .hasMessage("port broke");
        assertThat(closed).containsExactly("port", "engine", "audit");
    }
}
