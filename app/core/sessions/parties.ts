/**
 * The names the session log gives the parties that are not MCP clients (those log under their own
 * client names): the person in the control panel, and any other Jupyter client on the kernel.
 */

/** The person: the panel's buttons and the cells of its console. */
export const PANEL_CLIENT = 'panel';

/** Every cell another Jupyter client ran on the kernel (an IDE, `jupyter console`), seen on iopub. */
export const ANOTHER_CLIENT = 'another client';
