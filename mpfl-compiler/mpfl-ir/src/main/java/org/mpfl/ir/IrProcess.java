package org.mpfl.ir;

import java.util.List;
import org.mpfl.ir.diag.SourceLocation;

/**
 * One process (role) of the workflow: its rank count (an int expression over params), the service
 * type that hosts it, its variables (initialised in order before the body runs), the names of the
 * communicators it creates and the requests it uses, and its body.
 */
public record IrProcess(String name, String service, IrExpr ranks, List<IrVariable> variables,
        List<String> communicators, List<String> requests, List<IrActivity> body, SourceLocation at) {
    public IrProcess {
        variables = List.copyOf(variables);
        communicators = List.copyOf(communicators);
        requests = List.copyOf(requests);
        body = List.copyOf(body);
    }
}
