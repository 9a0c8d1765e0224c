package dev.logpipe.query.internal.loki;

import dev.logpipe.query.internal.loki.LogQl.BinaryOp;
import java.util.Map;
import java.util.SortedMap;

/**
 * Binary operators between scalars and vectors: arithmetic keeps a vector's labels; a comparison filters a vector's
 * points (or gives 0/1 with {@code bool}); two vectors match series with equal labels (one to one).
 */
final class Operators {
    private Operators() {}

    static Value apply(BinaryOp op, Value left, Value right, boolean bool, int steps) {
        if (left instanceof Value.Scalar l && right instanceof Value.Scalar r) {
            double[] v = new double[steps];
            for (int k = 0; k < steps; k++) {
                v[k] = op.comparison()
                        ? (compare(op, l.values()[k], r.values()[k]) ? 1 : 0)
                        : arithmetic(op, l.values()[k], r.values()[k]);
            }
            return new Value.Scalar(v);
        }
        Value.Vector out = new Value.Vector();
        if (left instanceof Value.Vector l && right instanceof Value.Vector r) {
            for (Map.Entry<SortedMap<String, String>, double[]> e : l.series().entrySet()) {
                double[] other = r.series().get(e.getKey());
                if (other != null) {
                    out.series().put(e.getKey(), points(op, e.getValue(), other, bool, true, steps));
                }
            }
            return out;
        }
        boolean vectorLeft = left instanceof Value.Vector;
        Value.Vector vec = (Value.Vector) (vectorLeft ? left : right);
        double[] scalar = ((Value.Scalar) (vectorLeft ? right : left)).values();
        for (Map.Entry<SortedMap<String, String>, double[]> e : vec.series().entrySet()) {
            double[] v = vectorLeft
                    ? points(op, e.getValue(), scalar, bool, true, steps)
                    : points(op, scalar, e.getValue(), bool, false, steps);
            out.series().put(e.getKey(), v);
        }
        return out;
    }

    /** Point by point; a comparison without bool keeps the vector side's value where it holds ({@code keepLeft}). */
    private static double[] points(BinaryOp op, double[] a, double[] b, boolean bool, boolean keepLeft, int steps) {
        double[] v = new double[steps];
        for (int k = 0; k < steps; k++) {
            if (Double.isNaN(a[k]) && !op.comparison() || Double.isNaN(keepLeft ? a[k] : b[k])) {
                v[k] = Double.NaN;
                continue;
            }
            if (!op.comparison()) {
                v[k] = arithmetic(op, a[k], b[k]);
            } else if (bool) {
                v[k] = compare(op, a[k], b[k]) ? 1 : 0;
            } else {
                v[k] = compare(op, a[k], b[k]) ? (keepLeft ? a[k] : b[k]) : Double.NaN;
            }
        }
        return v;
    }

    private static double arithmetic(BinaryOp op, double a, double b) {
        return switch (op) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case MOD -> a % b;
            case POW -> Math.pow(a, b);
            default -> throw new AssertionError(op);
        };
    }

    private static boolean compare(BinaryOp op, double a, double b) {
        return switch (op) {
            case EQ -> a == b;
            case NE -> a != b;
            case GT -> a > b;
            case GE -> a >= b;
            case LT -> a < b;
            case LE -> a <= b;
            default -> throw new AssertionError(op);
        };
    }
}
