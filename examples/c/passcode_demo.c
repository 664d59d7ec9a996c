/* placeholder replaced by the flow-driven front end */
#include <passcode.h>
#include <stdio.h>
int main(void) { printf("libpasscode %s\n", passcode_version_string()); return 0; }
