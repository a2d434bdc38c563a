console.log('agw');
