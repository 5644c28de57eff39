src/cli/CMakeFiles/launchguard.dir/__/main.cpp.o: /work/main/src/main.cpp \
 /usr/include/stdc-predef.h
