package org.mpfl.ir;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;
import org.mpfl.ir.diag.SourceLocation;

/**
 * One activity of a process body, typed and resolved (spec section 4), serialised with a
 * {@code "kind"} discriminator equal to the element name. Defaults of the source are filled in:
 * {@code comm} is never null ({@code "world"}), {@code algorithm} is never null ({@code "auto"}),
 * send tags default to the constant 0. A null {@code from} / receive {@code tag} means "any".
 * Every body is a list executed in order.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = IrActivity.Assign.class, name = "assign"),
    @JsonSubTypes.Type(value = IrActivity.If.class, name = "if"),
    @JsonSubTypes.Type(value = IrActivity.While.class, name = "while"),
    @JsonSubTypes.Type(value = IrActivity.For.class, name = "for"),
    @JsonSubTypes.Type(value = IrActivity.Break.class, name = "break"),
    @JsonSubTypes.Type(value = IrActivity.Sequence.class, name = "sequence"),
    @JsonSubTypes.Type(value = IrActivity.Parallel.class, name = "parallel"),
    @JsonSubTypes.Type(value = IrActivity.Compute.class, name = "compute"),
    @JsonSubTypes.Type(value = IrActivity.Invoke.class, name = "invoke"),
    @JsonSubTypes.Type(value = IrActivity.Send.class, name = "send"),
    @JsonSubTypes.Type(value = IrActivity.Receive.class, name = "receive"),
    @JsonSubTypes.Type(value = IrActivity.SendRecv.class, name = "sendrecv"),
    @JsonSubTypes.Type(value = IrActivity.ISend.class, name = "isend"),
    @JsonSubTypes.Type(value = IrActivity.IRecv.class, name = "irecv"),
    @JsonSubTypes.Type(value = IrActivity.Wait.class, name = "wait"),
    @JsonSubTypes.Type(value = IrActivity.WaitAll.class, name = "waitall"),
    @JsonSubTypes.Type(value = IrActivity.Barrier.class, name = "barrier"),
    @JsonSubTypes.Type(value = IrActivity.Broadcast.class, name = "broadcast"),
    @JsonSubTypes.Type(value = IrActivity.Scatter.class, name = "scatter"),
    @JsonSubTypes.Type(value = IrActivity.Gather.class, name = "gather"),
    @JsonSubTypes.Type(value = IrActivity.Allgather.class, name = "allgather"),
    @JsonSubTypes.Type(value = IrActivity.Alltoall.class, name = "alltoall"),
    @JsonSubTypes.Type(value = IrActivity.Reduce.class, name = "reduce"),
    @JsonSubTypes.Type(value = IrActivity.Allreduce.class, name = "allreduce"),
    @JsonSubTypes.Type(value = IrActivity.Scan.class, name = "scan"),
    @JsonSubTypes.Type(value = IrActivity.Split.class, name = "split"),
    @JsonSubTypes.Type(value = IrActivity.Cartesian.class, name = "cartesian"),
    @JsonSubTypes.Type(value = IrActivity.Output.class, name = "output"),
    @JsonSubTypes.Type(value = IrActivity.Log.class, name = "log"),
    @JsonSubTypes.Type(value = IrActivity.Progress.class, name = "progress"),
    @JsonSubTypes.Type(value = IrActivity.Fail.class, name = "fail"),
    @JsonSubTypes.Type(value = IrActivity.Checkpoint.class, name = "checkpoint"),
})
public sealed interface IrActivity {
    /** Location of the element's start tag. */
    SourceLocation at();

    /** The element name of an activity, as written in the document (its {@code "kind"}). */
    static String elementName(IrActivity a) {
        String simple = a.getClass().getSimpleName();
        return switch (simple) {
            case "ISend" -> "isend";
            case "IRecv" -> "irecv";
            case "SendRecv" -> "sendrecv";
            case "WaitAll" -> "waitall";
            default -> simple.toLowerCase(Locale.ROOT);
        };
    }

    /** Marker of the activities that communicate (point-to-point and collective); handy for the communication check. */
    sealed interface Communication extends IrActivity {
        /** The communicator name: {@code world}, a process name, or a split/cartesian name. */
        String comm();
    }

    /** Marker of collective operations: every rank of {@link #comm()} must execute the same ones in the same order. */
    sealed interface Collective extends Communication {
        String algorithm();
    }

    /** Point-to-point send mode. */
    enum SendMode {
        STANDARD, SYNCHRONOUS;

        @JsonValue
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static SendMode of(String text) {
            for (SendMode m : values()) {
                if (m.spelling().equals(text)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** Reduction operators, element-wise on arrays. */
    enum ReduceOp {
        SUM, PROD, MIN, MAX, LAND, LOR, BAND, BOR;

        @JsonValue
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static ReduceOp of(String text) {
            for (ReduceOp m : values()) {
                if (m.spelling().equals(text)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** Log levels. */
    enum LogLevel {
        INFO, WARN, ERROR;

        @JsonValue
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static LogLevel of(String text) {
            for (LogLevel m : values()) {
                if (m.spelling().equals(text)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** {@code target = value}; value already has the target's type. Arrays are copied (value semantics). */
    record Assign(IrTarget target, IrExpr value, SourceLocation at) implements IrActivity {
    }

    /** One {@code if}/{@code elseif} arm. */
    record Arm(IrExpr test, List<IrActivity> body, SourceLocation at) {
        public Arm {
            body = List.copyOf(body);
        }
    }

    /** The first arm whose test is true runs; otherwise {@code otherwise} (empty if no {@code else}). */
    record If(List<Arm> arms, List<IrActivity> otherwise, SourceLocation at) implements IrActivity {
        public If {
            arms = List.copyOf(arms);
            otherwise = List.copyOf(otherwise);
        }
    }

    record While(IrExpr test, List<IrActivity> body, SourceLocation at) implements IrActivity {
        public While {
            body = List.copyOf(body);
        }
    }

    /**
     * {@code for variable in [from, to) by step}: from/to/step are evaluated once before the loop;
     * a positive step counts up while {@code i < to}, a negative one down while {@code i > to}; a
     * step of zero is a run-time fault. The loop variable is a fresh int per loop.
     */
    record For(String variable, IrExpr from, IrExpr to, IrExpr step, List<IrActivity> body, SourceLocation at)
            implements IrActivity {
        public For {
            body = List.copyOf(body);
        }
    }

    /** Leaves the innermost enclosing {@code while}/{@code for} (never crosses a parallel branch). */
    record Break(SourceLocation at) implements IrActivity {
    }

    record Sequence(List<IrActivity> body, SourceLocation at) implements IrActivity {
        public Sequence {
            body = List.copyOf(body);
        }
    }

    /** Branches run concurrently in the rank; completes when all have completed. */
    record Parallel(List<List<IrActivity>> branches, SourceLocation at) implements IrActivity {
        public Parallel {
            branches = branches.stream().map(List::copyOf).toList();
        }
    }

    /**
     * Calls user code: {@code inputs} are evaluated (names of params/vars/loop vars, as refs) and
     * passed by name; the returned values named {@code outputs} are stored, checked against the
     * targets' types at run time. Exactly one of {@code className} (a Java activity in a library jar),
     * {@code python} ({@code MODULE:FUNCTION} in a Python library) and {@code command} (an executable
     * speaking docs/kernel-protocol.md, as written in the document) is set.
     */
    record Compute(String className, List<IrExpr.Ref> inputs, List<IrTarget> outputs, SourceLocation at,
            String python, String command) implements IrActivity {
        @JsonCreator
        public Compute {
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
        }

        /** A Java activity. */
        public Compute(String className, List<IrExpr.Ref> inputs, List<IrTarget> outputs, SourceLocation at) {
            this(className, inputs, outputs, at, null, null);
        }

        /** What the document names as the kernel: the class, {@code python MODULE:FUNCTION} or {@code command PATH}. */
        public String kernelName() {
            return python != null ? "python " + python : command != null ? "command " + command : className;
        }
    }

    /** Request-response SOAP call; input (string XML body) and output (string) are optional. */
    record Invoke(IrExpr endpoint, String operation, IrExpr input, IrTarget output, SourceLocation at)
            implements IrActivity {
    }

    record Send(IrExpr to, IrExpr data, IrExpr tag, String comm, SendMode mode, SourceLocation at)
            implements Communication {
    }

    /**
     * Receive into {@code into}. {@code from}/{@code tag} null = any. The arriving value must have the
     * type of {@code into} (numeric scalars may widen); otherwise a run-time fault. {@code timeout}
     * (long, ms) null = wait forever.
     */
    record Receive(IrExpr from, IrTarget into, IrExpr tag, String comm, IrTarget source, IrTarget gottag,
            IrExpr timeout, SourceLocation at) implements Communication {
    }

    record SendRecv(IrExpr to, IrExpr data, IrExpr sendTag, IrExpr from, IrTarget into, IrExpr recvTag,
            String comm, SourceLocation at) implements Communication {
    }

    /** Non-blocking send; completes at {@code wait}/{@code waitall} on {@code request}. */
    record ISend(IrExpr to, IrExpr data, IrExpr tag, String comm, SendMode mode, String request, SourceLocation at)
            implements Communication {
    }

    /** Non-blocking receive; {@code into}, {@code source}, {@code gottag} are written when the request completes. */
    record IRecv(IrExpr from, IrTarget into, IrExpr tag, String comm, IrTarget source, IrTarget gottag,
            String request, SourceLocation at) implements Communication {
    }

    record Wait(String request, SourceLocation at) implements IrActivity {
    }

    record WaitAll(List<String> requests, SourceLocation at) implements IrActivity {
        public WaitAll {
            requests = List.copyOf(requests);
        }
    }

    record Barrier(String comm, String algorithm, SourceLocation at) implements Collective {
    }

    /** In place: the root's value of {@code variable} is stored into {@code variable} on every rank. */
    record Broadcast(IrExpr root, IrTarget variable, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** Block distribution of the root's {@code data}; the first {@code len % p} ranks get one extra element. {@code data} is evaluated on the root only. */
    record Scatter(IrExpr root, IrExpr data, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** {@code into} is written on the root only. */
    record Gather(IrExpr root, IrExpr data, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    record Allgather(IrExpr data, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** {@code data} is split in p equal blocks (its length must be a multiple of p: run-time fault otherwise). */
    record Alltoall(IrExpr data, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** {@code into} is written on the root only. */
    record Reduce(IrExpr root, IrExpr data, ReduceOp op, IrTarget into, String comm, String algorithm,
            SourceLocation at) implements Collective {
    }

    record Allreduce(IrExpr data, ReduceOp op, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** Inclusive prefix reduction in rank order. */
    record Scan(IrExpr data, ReduceOp op, IrTarget into, String comm, String algorithm, SourceLocation at)
            implements Collective {
    }

    /** MPI_Comm_split of {@code comm}; {@code key} null = the rank in {@code comm}. Collective over {@code comm}. */
    record Split(String name, String comm, IrExpr color, IrExpr key, SourceLocation at) implements Communication {
    }

    /**
     * Cartesian topology over {@code comm}. {@code dims} is either one int per dimension or a single
     * int[] expression (e.g. {@code dims(size, 2)}); {@code periodic} is one boolean per dimension or a
     * single boolean applying to all. Ranks are not reordered. Collective over {@code comm}; ranks
     * beyond the product of dims are not members of the new communicator.
     */
    record Cartesian(String name, String comm, List<IrExpr> dims, List<IrExpr> periodic, SourceLocation at)
            implements Communication {
        public Cartesian {
            dims = List.copyOf(dims);
            periodic = List.copyOf(periodic);
        }
    }

    /** A result of the run, kept per name and rank. */
    record Output(String name, IrExpr value, SourceLocation at) implements IrActivity {
    }

    /** {@code message} has type string. */
    record Log(LogLevel level, IrExpr message, SourceLocation at) implements IrActivity {
    }

    /** {@code value} and {@code total} are doubles. */
    record Progress(IrExpr value, IrExpr total, SourceLocation at) implements IrActivity {
    }

    /** Raises a user fault; {@code message} has type string. */
    record Fail(IrExpr message, SourceLocation at) implements IrActivity {
    }

    /**
     * {@code <checkpoint every>}: a collective over {@code world} (every rank reaches it the same
     * number of times, in the same order as its other world collectives) that saves each rank's
     * state on every {@code every}-th arrival ({@code every} is an int; 1 when not given; 0 or less
     * takes none). {@link #comm()} is always {@code world}, {@link #algorithm()} always {@code auto}.
     */
    record Checkpoint(IrExpr every, SourceLocation at) implements Collective {
        /** Always {@code world}: a checkpoint cuts the whole domain. */
        @Override
        @com.fasterxml.jackson.annotation.JsonIgnore
        public String comm() {
            return "world";
        }

        @Override
        @com.fasterxml.jackson.annotation.JsonIgnore
        public String algorithm() {
            return "auto";
        }
    }
}
